package codec

import (
	"errors"
	"strings"
	"testing"
)

// canonicalCases are texts and their canonical forms. FuzzCanonical starts
// from them.
var canonicalCases = []struct {
	name, in, want string
}{
	{"scalar/number", ` 1.50 `, `1.50`},
	{"scalar/big", `12345678901234567890e-400`, `12345678901234567890e-400`},
	{"scalar/literals", "[ true ,false,\nnull ]", `[true,false,null]`},
	{"string/plain", `"abc"`, `"abc"`},
	{"string/utf8", `"é中😀"`, `"é中😀"`},
	{"string/escaped letter", `"\u0061\u0062"`, `"ab"`},
	{"string/solidus", `"a\/b"`, `"a/b"`},
	{"string/unicode escapes", `"caf\u00e9 \ud83d\ude00"`, `"café 😀"`},
	{"string/kept escapes", `"\"\\\n\r\t\b\f"`, `"\"\\\n\r\t\b\f"`},
	{"string/control", `"\u0000\u001F\u0008\u000a"`, `"\u0000\u001f\b\n"`},
	{"string/quote as unicode", `"\u0022\u005c"`, `"\"\\"`},
	{"string/lone surrogate", `"\ud800x"`, "\"\uFFFDx\""},
	{"string/line separators", `"\u2028\u2029"`, "\"\u2028\u2029\""},
	{"string/del", `"\u007f"`, "\"\x7f\""},
	{"object/empty", ` { } `, `{}`},
	{"object/sorted", `{"a":1,"b":2}`, `{"a":1,"b":2}`},
	{"object/reordered", `{ "b" : 2 , "a" : 1 }`, `{"a":1,"b":2}`},
	{"object/nested", `{"z":{"y":1,"x":[{"b":0,"a":0}]},"a":[]}`, `{"a":[],"z":{"x":[{"a":0,"b":0}],"y":1}}`},
	{"object/byte order", `{"é":1,"z":2,"Z":3,"":4,"aa":5,"a":6}`, `{"":4,"Z":3,"a":6,"aa":5,"z":2,"é":1}`},
	{"object/escaped names", `{"\u0062":1,"a\u0000":2,"a":3}`, `{"a":3,"a\u0000":2,"b":1}`},
	{"object/escaped name sorts unescaped", `{"\"":1,"!":2,"#":3}`, `{"!":2,"\"":1,"#":3}`},
	{"object/duplicates keep order", `{"b":1,"a":2,"b":3,"a":4}`, `{"a":2,"a":4,"b":1,"b":3}`},
	{"object/duplicates by escape", `{"a":2,"\u0061":1}`, `{"a":2,"a":1}`},
	{"object/deep unsorted", `[{"b":{"d":{"f":1,"e":2},"c":3},"a":4}]`, `[{"a":4,"b":{"c":3,"d":{"e":2,"f":1}}}]`},
	{"object/many", `{"j":0,"i":1,"h":2,"g":3,"f":4,"e":5,"d":6,"c":7,"b":8,"a":9,"k":10,"l":11,"m":12,"n":13,"o":14,"p":15,"q":16,"r":17,"s":18,"t":19,"u":20,"v":21}`,
		`{"a":9,"b":8,"c":7,"d":6,"e":5,"f":4,"g":3,"h":2,"i":1,"j":0,"k":10,"l":11,"m":12,"n":13,"o":14,"p":15,"q":16,"r":17,"s":18,"t":19,"u":20,"v":21}`},
	{"params", "{\n  \"name\": \"echo\",\n  \"arguments\": {\"text\": \"hi\", \"n\": 1}\n}", `{"arguments":{"n":1,"text":"hi"},"name":"echo"}`},
}

func TestAppendCanonical(t *testing.T) {
	var c Canonicalizer
	for _, tt := range canonicalCases {
		t.Run(tt.name, func(t *testing.T) {
			got, err := AppendCanonical([]byte("x"), []byte(tt.in))
			if err != nil || string(got) != "x"+tt.want {
				t.Fatalf("AppendCanonical(%s) = %s, %v; want x%s", tt.in, got, err, tt.want)
			}
			// A Canonicalizer reused across cases gives the same bytes,
			// and the canonical form is a fixed point.
			got, err = c.Append(nil, []byte(tt.in))
			if err != nil || string(got) != tt.want {
				t.Fatalf("Canonicalizer.Append(%s) = %s, %v; want %s", tt.in, got, err, tt.want)
			}
			again, err := c.Append(nil, got)
			if err != nil || string(again) != tt.want {
				t.Fatalf("canonical form of %s = %s, %v; want itself", got, again, err)
			}
		})
	}
}

// TestAppendCanonical_equivalent: texts that differ only by white space,
// member order or escape spelling have one canonical form.
func TestAppendCanonical_equivalent(t *testing.T) {
	groups := [][]string{
		{`{"a":1,"b":[true,"x"]}`, ` { "b" : [ true , "\u0078" ] , "a" : 1 } `, "{\"\\u0062\":[true,\"x\"],\n\"a\":1}"},
		{`"a/é"`, `"\u0061\/\u00e9"`, `"\u0061\u002f\u00E9"`},
		{`{"k":{"y":2,"x":1}}`, `{"\u006b":{"x":1,"\u0079":2}}`},
	}
	for _, g := range groups {
		first, err := AppendCanonical(nil, []byte(g[0]))
		if err != nil {
			t.Fatal(err)
		}
		for _, in := range g[1:] {
			if got, err := AppendCanonical(nil, []byte(in)); err != nil || string(got) != string(first) {
				t.Errorf("canonical %s = %s, %v; want %s as for %s", in, got, err, first, g[0])
			}
		}
	}
}

func TestAppendCanonical_invalid(t *testing.T) {
	tests := []struct {
		in   string
		at   int64
		want error
	}{
		{``, 0, ErrSyntax},
		{`{"a":1,}`, 7, ErrSyntax},
		{`{"a" 1}`, 5, ErrSyntax},
		{`{"a":1 "b":2}`, 7, ErrSyntax},
		{`{1:1}`, 1, ErrSyntax},
		{`[1,]`, 3, ErrSyntax},
		{`[1 2]`, 3, ErrSyntax},
		{`[1`, 2, ErrSyntax},
		{`{"b":1,"a":[}`, 12, ErrSyntax},
		{`"\x"`, 1, ErrInvalidEscape},
		{"\"\xff\"", 1, ErrInvalidUTF8},
		{`1 2`, 2, ErrTrailingData},
		{`nul`, 0, ErrSyntax},
		{strings.Repeat("[", DefaultMaxDepth+1) + strings.Repeat("]", DefaultMaxDepth+1), DefaultMaxDepth, ErrTooDeep},
	}
	var c Canonicalizer
	for _, tt := range tests {
		got, err := c.Append([]byte("keep"), []byte(tt.in))
		var se *SyntaxError
		if !errors.As(err, &se) || !errors.Is(err, tt.want) || se.Offset != tt.at || string(got) != "keep" {
			t.Errorf("Append(%.40q) = %q, %v; want keep and %v at %d", tt.in, got, err, tt.want, tt.at)
		}
	}
	// The depth limit is the Limits' one.
	deep := []byte(`[[[1]]]`)
	if _, err := NewCanonicalizer(&Limits{MaxDepth: 2}).Append(nil, deep); !errors.Is(err, ErrTooDeep) {
		t.Errorf("MaxDepth 2: %v, want ErrTooDeep", err)
	}
	if _, err := NewCanonicalizer(&Limits{MaxDepth: 3}).Append(nil, deep); err != nil {
		t.Errorf("MaxDepth 3: %v", err)
	}
	// After an error the Canonicalizer is as good as new.
	if got, err := c.Append(nil, []byte(`{"b":1,"a":2}`)); err != nil || string(got) != `{"a":2,"b":1}` {
		t.Errorf("after errors: %s, %v", got, err)
	}
}

// TestAppendCanonical_matchesEncoder: a string's canonical form is what the
// encoder writes for the same characters.
func TestAppendCanonical_matchesEncoder(t *testing.T) {
	var s strings.Builder
	for r := rune(0); r < 0x100; r++ {
		s.WriteRune(r)
	}
	s.WriteString("\u2028\u2029\uFFFD😀")
	chars := s.String()
	var esc strings.Builder
	esc.WriteByte('"')
	for _, r := range chars {
		if r > 0xffff {
			esc.WriteString(`\ud83d\ude00`)
			continue
		}
		esc.WriteString(`\u`)
		const hex = "0123456789ABCDEF"
		esc.Write([]byte{hex[r>>12], hex[r>>8&0xf], hex[r>>4&0xf], hex[r&0xf]})
	}
	esc.WriteByte('"')
	want := string(appendString(nil, chars))
	got, err := AppendCanonical(nil, []byte(esc.String()))
	if err != nil || string(got) != want {
		t.Fatalf("canonical\n got %s, %v\nwant %s", got, err, want)
	}
}
