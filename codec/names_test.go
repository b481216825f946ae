package codec

import (
	"bytes"
	"encoding/json"
	"io"
	"strconv"
	"strings"
	"testing"
)

// manyNames returns n distinct members "k0":0, "k1":1, … (comma-separated).
func manyNames(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"k` + strconv.Itoa(i) + `":` + strconv.Itoa(i))
	}
	return b.String()
}

// dupNameCases are params with and without a duplicated member name. For a
// duplicate, member and pointer are the data of the -32602 it is answered
// with; pointer is empty when the params are fine. They also seed
// FuzzDuplicateName.
var dupNameCases = []struct {
	name, params    string
	member, pointer string
}{
	{"plain", `{"a":1,"a":2}`, "a", "/params/a"},
	{"plainSameValue", `{"a":1,"b":2,"a":1}`, "a", "/params/a"},
	{"escapedSecond", `{"a":1,"\u0061":2}`, "a", "/params/a"},
	{"escapedFirst", `{"\u0061":1,"a":2}`, "a", "/params/a"},
	{"bothEscaped", `{"\u00e9":1,"\u00E9":2}`, "é", "/params/é"},
	{"utf8AndEscaped", `{"é":1,"\u00e9":2}`, "é", "/params/é"},
	{"escapedSlash", `{"a/b":1,"a\/b":2}`, "a/b", "/params/a~1b"},
	{"nested", `{"x":{"y":{"a":1,"a":2}}}`, "a", "/params/x/y/a"},
	{"inArray", `[1,{"a":1},{"b":1,"b":2}]`, "b", "/params/2/b"},
	{"arrayInObject", `{"list":[{"a":1,"c":[{"d":1,"d":2}]}]}`, "d", "/params/list/0/c/0/d"},
	{"toolArguments", `{"name":"add","arguments":{"x":1,"y":2,"x":3}}`, "x", "/params/arguments/x"},
	{"afterNestedObject", `{"a":{"b":1,"c":2},"d":3,"a":4}`, "a", "/params/a"},
	{"pointerEscapes", `{"~/":1,"~/":2}`, "~/", "/params/~0~1"},
	{"emptyName", `{"":1,"":2}`, "", "/params/"},
	{"large", `{` + manyNames(100) + `,"k57":0}`, "k57", "/params/k57"},
	{"largeEscaped", `{` + manyNames(100) + `,"k\u0035\u0037":0}`, "k57", "/params/k57"},
	{"largeNested", `{"o":{` + manyNames(40) + `},"p":{` + manyNames(40) + `,"k3":1}}`, "k3", "/params/p/k3"},
	{"firstOfTwo", `{"a":{"b":1,"b":2},"c":{"d":1,"d":2}}`, "b", "/params/a/b"},

	{"distinct", `{"a":1,"b":2,"A":3,"a ":4}`, "", ""},
	{"escapedDistinct", `{"a":1,"\u0062":2}`, "", ""},
	{"sameNameSiblings", `[{"a":1},{"a":2},{"a":3,"b":{"a":4}}]`, "", ""},
	{"sameNameDepths", `{"a":{"a":{"a":1}},"b":{"a":2}}`, "", ""},
	{"sameNameAfterClose", `{"o":{"a":1,"b":2},"p":{"a":1,"b":2},"a":1,"b":2}`, "", ""},
	{"largeDistinct", `{` + manyNames(1000) + `}`, "", ""},
	{"largeSiblings", `[{` + manyNames(30) + `},{` + manyNames(30) + `}]`, "", ""},
	{"stringsNotNames", `{"a":"a","b":["a","a"],"c":{"x":"a"}}`, "", ""},
}

// TestDuplicateName: DuplicateName finds a member name given twice in one
// object, after unescaping, at any depth, and DuplicateNameError names it
// and its JSON Pointer; params without one are passed.
func TestDuplicateName(t *testing.T) {
	for _, c := range dupNameCases {
		t.Run(c.name, func(t *testing.T) {
			v := []byte(c.params)
			if !json.Valid(v) {
				t.Fatalf("bad case: %s", c.params)
			}
			if got := refDuplicate(v); got != (c.pointer != "") {
				t.Fatalf("bad case: encoding/json's tokens find a duplicate: %v", got)
			}
			for _, pad := range []string{"", " \n\t"} { // compact and spaced
				w := []byte(strings.NewReplacer(",", ","+pad, ":", pad+":"+pad, "{", "{"+pad, "[", "["+pad).Replace(c.params))
				if !json.Valid(w) {
					w = v // a replacement landed inside a string
				}
				at := DuplicateName(w)
				if c.pointer == "" {
					if at != -1 {
						t.Fatalf("%s: duplicate at %d", w, at)
					}
					continue
				}
				if at < 0 || w[at] != '"' {
					t.Fatalf("%s: at %d, want the quote of a name", w, at)
				}
				checkDupError(t, DuplicateNameError(w, at), c.member, c.pointer)
			}
		})
	}
}

// checkDupError checks that e is the -32602 for a duplicated name.
func checkDupError(t *testing.T, e *Error, member, pointer string) {
	t.Helper()
	if e == nil || e.Code != CodeInvalidParams || e.Message != "Invalid params: duplicated member" {
		t.Fatalf("got %v; want -32602 for a duplicated member", e)
	}
	raw, ok := e.Data.(Raw)
	if !ok {
		t.Fatalf("data %T, want Raw", e.Data)
	}
	var data struct{ Member, Pointer *string }
	if err := json.Unmarshal(raw, &data); err != nil || data.Member == nil || data.Pointer == nil {
		t.Fatalf("data %s: %v", raw, err)
	}
	if *data.Member != member || *data.Pointer != pointer {
		t.Fatalf("data %s; want member %q, pointer %q", raw, member, pointer)
	}
}

// TestDuplicateName_deep: any depth the scanner accepts.
func TestDuplicateName_deep(t *testing.T) {
	const depth = 500
	params := strings.Repeat(`{"o":`, depth) + `{"a":1,"a":2}` + strings.Repeat(`}`, depth)
	checkDupError(t, DuplicateNameError([]byte(params), DuplicateName([]byte(params))), "a", "/params"+strings.Repeat("/o", depth)+"/a")
}

// TestDuplicateName_scalars: a value that is not a container has no names.
func TestDuplicateName_scalars(t *testing.T) {
	for _, v := range []string{`1`, `-2.5e3`, `"a"`, `true`, `null`, ` [] `, `{}`, ""} {
		if at := DuplicateName([]byte(v)); at != -1 {
			t.Errorf("%q: %d", v, at)
		}
	}
}

// FuzzDuplicateName: on any bytes, DuplicateName never panics and returns
// -1 or the offset of a quote; on valid JSON it agrees with
// encoding/json's tokens on whether a name is given twice in one object,
// and what it points at is a name whose error can be built.
func FuzzDuplicateName(f *testing.F) {
	for _, c := range dupNameCases {
		f.Add([]byte(c.params))
		f.Add([]byte(c.params[:len(c.params)/2]))
	}
	for _, c := range scanValidCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, v []byte) {
		if at := DuplicateName(v); at != -1 && (at < 0 || at >= len(v) || v[at] != '"') {
			t.Fatalf("DuplicateName = %d", at)
		}
		if !json.Valid(v) || !NewScanner(nil).Valid(v) {
			return
		}
		at, want := DuplicateName(v), refDuplicate(v)
		if (at >= 0) != want {
			t.Fatalf("DuplicateName = %d, encoding/json finds a duplicate: %v", at, want)
		}
		if at >= 0 {
			if e := DuplicateNameError(v, at); e == ErrInvalidParams {
				t.Fatalf("at %d is not a name", at)
			}
		}
	})
}

// refDuplicate is the reference the scanner is checked against: it reports
// whether v, valid JSON, holds an object with a member name twice, reading
// it with encoding/json's tokens (names unescaped).
func refDuplicate(v []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(v))
	dec.UseNumber()
	type frame struct {
		obj   bool
		names map[string]bool
		name  bool // the next string is a name
	}
	var stack []frame
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return false
		}
		if err != nil {
			panic(err)
		}
		top := len(stack) - 1
		if d, ok := tok.(json.Delim); ok {
			switch d {
			case '{':
				if top >= 0 && stack[top].obj {
					stack[top].name = true
				}
				stack = append(stack, frame{obj: true, names: map[string]bool{}, name: true})
			case '[':
				if top >= 0 && stack[top].obj {
					stack[top].name = true
				}
				stack = append(stack, frame{})
			default:
				stack = stack[:top]
			}
			continue
		}
		if top < 0 || !stack[top].obj {
			continue
		}
		if stack[top].name {
			name := tok.(string)
			if stack[top].names[name] {
				return true
			}
			stack[top].names[name] = true
			stack[top].name = false
		} else {
			stack[top].name = true
		}
	}
}

// TestDuplicateName_invalidTextDoesNotPanic: text no Scanner validated is
// walked as far as it goes, never past its end.
func TestDuplicateName_invalidTextDoesNotPanic(t *testing.T) {
	for _, v := range []string{`{`, `{"a`, `{"a":`, `{"a":1`, `{"a":1,`, `[`, `[1,`, `{"a":1,"a"`, `{1:2}`, `{"a" 1}`, strings.Repeat(`[`, 100000), `{"a":[{"b":`} {
		DuplicateName([]byte(v))
	}
	if at := DuplicateName([]byte(`{"a":1,"a"`)); at != 7 {
		t.Errorf("truncated after the duplicate: %d, want 7", at)
	}
}
