package codec

import (
	"encoding/json"
	"testing"
)

var unescapeCases = []struct {
	name, body, want string
}{
	{"plain", `tools/call`, "tools/call"},
	{"empty", ``, ""},
	{"simpleEscapes", `a\"b\\c\/d\be\ff\ng\rh\ti`, "a\"b\\c/d\be\ff\ng\rh\ti"},
	{"unicodeBMP", `caf\u00e9 \u4E2D`, "café 中"},
	{"surrogatePair", `\ud83d\ude00`, "😀"},
	{"loneHigh", `\ud800`, "\uFFFD"},
	{"loneHighThenText", `\ud800abc`, "\uFFFDabc"},
	{"loneLow", `\udc00`, "\uFFFD"},
	{"invertedPair", `\ude00\ud83d`, "\uFFFD\uFFFD"},
	{"highThenNonLow", `\ud800\u0041`, "\uFFFDA"},
	{"highHighLow", `\ud800\ud83d\ude00`, "\uFFFD😀"},
	{"nul", `\u0000`, "\x00"},
	{"rawUnicode", `é中😀`, "é中😀"},
	{"broken", `ab\`, `ab\`},
	{"brokenHex", `\u12`, `\u12`},
}

func TestAppendUnescaped(t *testing.T) {
	for _, tt := range unescapeCases {
		t.Run(tt.name, func(t *testing.T) {
			got := AppendUnescaped([]byte("x"), []byte(tt.body))
			if string(got) != "x"+tt.want {
				t.Errorf("AppendUnescaped(%q) = %q, want %q", tt.body, got[1:], tt.want)
			}
			// Where the body is valid JSON, encoding/json agrees.
			quoted := []byte(`"` + tt.body + `"`)
			var s string
			if NewScanner(nil).Valid(quoted) && json.Unmarshal(quoted, &s) == nil && s != tt.want {
				t.Errorf("encoding/json unescapes %q to %q, want %q", tt.body, s, tt.want)
			}
		})
	}
}

func TestAppendUnescaped_doesNotAllocateWithCapacity(t *testing.T) {
	body := []byte(`caf\u00e9 \ud83d\ude00 \n done`)
	buf := make([]byte, 0, 64)
	if n := testing.AllocsPerRun(100, func() { buf = AppendUnescaped(buf[:0], body) }); n != 0 {
		t.Errorf("AppendUnescaped allocated %v times", n)
	}
}
