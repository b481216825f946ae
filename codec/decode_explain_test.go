package codec

import (
	"errors"
	"reflect"
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

type explainInner struct {
	X int `json:"x"`
}

type explainParams struct {
	Name  string                  `json:"name"`
	N     *float64                `json:"n"`
	In    explainInner            `json:"in"`
	List  []explainInner          `json:"list"`
	Map   map[string]explainInner `json:"map"`
	Any   any                     `json:"any"`
	Raw   Raw                     `json:"raw"`
	Bytes []byte                  `json:"bytes"`
	Small int8                    `json:"small"`
	Count uint                    `json:"count"`
	Str   int                     `json:"str,string"`
	Plain int
}

// exactCases are params and whether UnmarshalExact takes them.
var exactCases = []struct {
	in string
	ok bool
}{
	{`{"name":"a","n":1.5,"in":{"x":1},"list":[{"x":2}],"map":{"k":{"x":3}},"any":{"A":[1,"b",null]},"raw":[1, 2]}`, true},
	{`{"NAME":"a","In":{"x":1},"list":[{"X":2}],"map":{"K":{"X":3}},"plain":4,"Plain":5}`, true},
	{`{"n":null,"in":null,"list":null,"any":null,"raw":null}`, true},
	{`{"n\u0061me":"\u00e9","bytes":"aGk=","str":"12"}`, true},
	{`{"name":"a","name":"b"}`, true}, // the last wins, as in encoding/json
	{`{"small":-128,"count":18446744073709551615,"unknown":{"x":[]}}`, true},
	{`{"name":1}`, false},
	{`{"in":{"x":"1"}}`, false},
	{`{"list":[{"x":1},{"x":true}]}`, false},
	{`{"map":{"k":[]}}`, false},
	{`{"small":128}`, false},
	{`{"count":-1}`, false},
	{`{"n":1e400}`, false},
	{`{"bytes":1}`, false},
	{`{"str":12}`, false},
	{`[1]`, false},
}

// TestExactOptions_agreeWithUnmarshalExact: the options of the decoder
// used where sonic has none give the same values and the same verdicts as
// UnmarshalExact on this platform, and ExplainExact fails exactly when
// they do, with a JSON Pointer to the value at fault.
func TestExactOptions_agreeWithUnmarshalExact(t *testing.T) {
	for _, c := range exactCases {
		var got, want explainParams
		wantErr := UnmarshalExact([]byte(c.in), &want)
		err := json.Unmarshal([]byte(c.in), &got, exactOptions)
		if (wantErr == nil) != c.ok || (err == nil) != c.ok {
			t.Errorf("%s: UnmarshalExact: %v; with exactOptions: %v; want ok %v", c.in, wantErr, err, c.ok)
			continue
		}
		if c.ok && !reflect.DeepEqual(got, want) {
			t.Errorf("%s: with exactOptions %+v, UnmarshalExact %+v", c.in, got, want)
		}
		var e explainParams
		xerr := ExplainExact([]byte(c.in), &e)
		var se *json.SemanticError
		if c.ok != (xerr == nil) || !c.ok && !errors.As(xerr, &se) {
			t.Errorf("%s: ExplainExact: %v (%T), want ok %v or a *json.SemanticError", c.in, xerr, xerr, c.ok)
		}
	}
}

func TestExplainExact_locates(t *testing.T) {
	for _, c := range []struct {
		in, pointer, value string
		typ                reflect.Type
	}{
		{`{"in":{"x":"1"}}`, "/in/x", `"1"`, reflect.TypeFor[int]()},
		{`{"list":[{"x":1},{"x":true}]}`, "/list/1/x", `true`, reflect.TypeFor[int]()},
		{`{"map":{"a/b":[]}}`, "/map/a~1b", `[]`, reflect.TypeFor[explainInner]()},
		{`{"small":128}`, "/small", `128`, reflect.TypeFor[int8]()},
		{`[1]`, "", `[1]`, reflect.TypeFor[explainParams]()},
	} {
		var se *json.SemanticError
		if err := ExplainExact([]byte(c.in), new(explainParams)); !errors.As(err, &se) {
			t.Fatalf("%s: %v, want a *json.SemanticError", c.in, err)
		}
		if se.JSONPointer != jsontext.Pointer(c.pointer) || se.GoType != c.typ ||
			se.ByteOffset < 0 || se.ByteOffset+int64(len(c.value)) > int64(len(c.in)) ||
			c.in[se.ByteOffset:se.ByteOffset+int64(len(c.value))] != c.value {
			t.Errorf("%s: pointer %q, offset %d, type %v; want %q, at %s, %v", c.in, se.JSONPointer, se.ByteOffset, se.GoType, c.pointer, c.value, c.typ)
		}
	}
	var se *jsontext.SyntacticError
	if err := ExplainExact([]byte(`{"a":`), new(explainParams)); !errors.As(err, &se) {
		t.Errorf("truncated JSON: %v, want a *jsontext.SyntacticError", err)
	}
}

func TestExactTarget(t *testing.T) {
	type Embedded struct {
		E int `json:"e"`
	}
	type S struct {
		*Embedded
		A int `json:"a"`
		B string
	}
	var s S
	if p := ExactTarget(&s, "a"); p != &s.A {
		t.Errorf(`"a": %v, want &s.A`, p)
	}
	if p := ExactTarget(&s, "B"); p != &s.B {
		t.Errorf(`"B": %v, want &s.B`, p)
	}
	if p := ExactTarget(&s, "e"); s.Embedded == nil || p != &s.Embedded.E {
		t.Errorf(`"e": %v, want &s.Embedded.E`, p)
	}
	for _, name := range []string{"A", "b", "x", ""} {
		if p := ExactTarget(&s, name); p != nil {
			t.Errorf("%q: %v, want nil", name, p)
		}
	}
	if s.A != 0 || s.B != "" || s.E != 0 {
		t.Errorf("ExactTarget wrote to the struct: %+v", s)
	}
	defer func() {
		if recover() == nil {
			t.Error("ExactTarget of a map: no panic")
		}
	}()
	ExactTarget(&map[string]int{}, "a")
}
