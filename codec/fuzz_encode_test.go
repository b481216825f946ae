package codec

import (
	"encoding/json"
	"testing"

	"github.com/bytedance/sonic/encoder"
)

// FuzzEncode: any method name or error message encodes to valid JSON whose
// decoded string is the input, with each invalid UTF-8 byte replaced by
// U+FFFD; the raw id and params are echoed unchanged.
func FuzzEncode(f *testing.F) {
	for _, s := range []string{"", "tools/call", "a\"b\\c", "\x00\x1f\x7f", "é€😀", "\xff\xfe", "\xed\xa0\x80", "\u2028<>&", "echo", "a b~"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want := string([]rune(s)) // invalid bytes become U+FFFD, one each
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		out := AppendRequest(nil, []byte(`"i"`), s, []byte(`[1]`))
		if err := json.Unmarshal(out, &req); err != nil {
			t.Fatalf("AppendRequest(%q) = %s: %v", s, out, err)
		}
		if req.Method != want || string(req.ID) != `"i"` || string(req.Params) != `[1]` {
			t.Fatalf("AppendRequest(%q) = %s: decoded %q", s, out, req.Method)
		}
		var resp struct {
			Error struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		out = AppendError(nil, nil, &Error{Code: -1, Message: s})
		if err := json.Unmarshal(out, &resp); err != nil {
			t.Fatalf("AppendError(%q) = %s: %v", s, out, err)
		}
		if resp.Error.Message != want || resp.Error.Code != -1 {
			t.Fatalf("AppendError(%q) = %s: decoded %q", s, out, resp.Error.Message)
		}
		// A Go string through sonic follows the same rules.
		out, err := AppendValue(nil, s)
		if err != nil {
			t.Fatalf("AppendValue(%q): %v", s, err)
		}
		var back string
		if err := json.Unmarshal(out, &back); err != nil || back != want {
			t.Fatalf("AppendValue(%q) = %s: decoded %q, %v", s, out, back, err)
		}
		// Byte for byte what sonic writes, whether AppendValue quoted s
		// itself (plain bytes only) or left it to sonic.
		var bySonic []byte
		if err := encoder.EncodeInto(&bySonic, s, encOpts); err != nil || string(bySonic) != string(out) {
			t.Fatalf("AppendValue(%q) = %s, sonic writes %s (%v)", s, out, bySonic, err)
		}
		if str := AppendString([]byte("x"), s); string(str[1:]) != string(out) || str[0] != 'x' {
			t.Fatalf("AppendString(%q) = %s, AppendValue %s", s, str, out)
		}
	})
}
