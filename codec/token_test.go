package codec

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestKindOf(t *testing.T) {
	tests := []struct {
		in   string
		want ValueKind
	}{
		{`{}`, ValueObject}, {` [1]`, ValueArray}, {"\n\"s\"", ValueString},
		{`-1`, ValueNumber}, {`0`, ValueNumber}, {`9e1`, ValueNumber},
		{`true`, ValueTrue}, {`false`, ValueFalse}, {`null`, ValueNull},
		{``, ValueInvalid}, {`   `, ValueInvalid}, {`}`, ValueInvalid}, {`+1`, ValueInvalid}, {`x`, ValueInvalid},
	}
	for _, tt := range tests {
		if got := KindOf([]byte(tt.in)); got != tt.want {
			t.Errorf("KindOf(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
	if !ValueTrue.IsBool() || !ValueFalse.IsBool() || ValueNull.IsBool() {
		t.Error("IsBool")
	}
	if ValueObject.String() != "object" || ValueKind(200).String() != "kind?" {
		t.Error("String")
	}
}

// skipCases are values followed by something that is not part of them.
var skipCases = []struct {
	in   string // the value, then the rest
	want int    // the index just past the value
}{
	{`"abc",`, 5},
	{`"0123456789abcdef"]`, 18},
	{`"a\"b\\",1`, 8},
	{`"é中文😀"}`, 14},
	{`"\u00e9"`, 8},
	{`0,`, 1},
	{`-0.5e+10]`, 8},
	{`1234567890123456789012345 `, 25},
	{`12}`, 2},
	{`true,`, 4},
	{`false]`, 5},
	{`null}`, 4},
	{`{}`, 2},
	{`[],[]`, 2},
	{` {"a":[1,{"b":"]}"}],"c":"{"} ,`, 29},
	{`[[[[["x"]]]]],1`, 13},
	{"\t\n [ 1 , 2 ]  ", 12},
}

func TestSkipValue(t *testing.T) {
	for _, tt := range skipCases {
		for pad := range 9 { // every alignment of an 8-byte word
			in := []byte(strings.Repeat(" ", pad) + tt.in)
			end, err := SkipValue(in, 0)
			if err != nil || end != tt.want+pad {
				t.Errorf("SkipValue(%q) = %d, %v; want %d", in, end, err, tt.want+pad)
			}
		}
	}
}

func TestSkipValue_invalid(t *testing.T) {
	tests := []struct {
		in   string
		at   int
		want error
	}{
		{``, 0, ErrSyntax},
		{`   `, 3, ErrSyntax},
		{`"abc`, 4, ErrSyntax},
		{`"ab\x"`, 3, ErrInvalidEscape},
		{"\"\xff\"", 1, ErrInvalidUTF8},
		{`-`, 1, ErrSyntax},
		{`1.`, 2, ErrSyntax},
		{`tru`, 0, ErrSyntax},
		{`nul`, 0, ErrSyntax},
		{`[1,2`, 4, ErrSyntax},
		{`{"a":"}`, 7, ErrSyntax},
		{`}`, 0, ErrSyntax},
		{`:`, 0, ErrSyntax},
	}
	for _, tt := range tests {
		end, err := SkipValue([]byte(tt.in), 0)
		if !errors.Is(err, tt.want) || end != tt.at {
			t.Errorf("SkipValue(%q) = %d, %v; want %d, %v", tt.in, end, err, tt.at, tt.want)
		}
	}
	for _, i := range []int{-1, 5, 100} {
		if end, err := SkipValue([]byte(`[1]`), i); err == nil || end < 0 || end > 3 {
			t.Errorf("SkipValue at %d = %d, %v; want an error within the text", i, end, err)
		}
	}
}

func TestUnquote(t *testing.T) {
	for _, c := range unescapeCases {
		tok := []byte(` "` + c.body + `" `)
		if !json.Valid(tok) {
			continue // the broken bodies AppendUnescaped copies through
		}
		got, err := Unquote(tok)
		if err != nil || string(got) != c.want {
			t.Errorf("Unquote(%s) = %q, %v; want %q", tok, got, err, c.want)
		}
		got, err = AppendUnquote([]byte("x"), tok)
		if err != nil || string(got) != "x"+c.want {
			t.Errorf("AppendUnquote(%s) = %q, %v; want %q", tok, got, err, "x"+c.want)
		}
	}
	for _, in := range []string{``, `abc`, `"abc`, `"a" "b"`, `1`, `"\q"`, "\"\xff\""} {
		if got, err := Unquote([]byte(in)); err == nil {
			t.Errorf("Unquote(%q) = %q, want an error", in, got)
		}
		if got, err := AppendUnquote([]byte("x"), []byte(in)); err == nil || string(got) != "x" {
			t.Errorf("AppendUnquote(%q) = %q, %v; want x and an error", in, got, err)
		}
	}
	// Without escapes the result is a view into the token.
	tok := []byte(`"plain"`)
	if got, _ := Unquote(tok); &got[0] != &tok[1] {
		t.Error("Unquote copied a string without escapes")
	}
}
