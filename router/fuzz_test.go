package router

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/mcpwire/mcpwire/codec"
)

type fuzzPoint struct {
	X int `json:"x"`
	Y int `json:"y,omitempty"`
}

type fuzzParams struct {
	Name  string               `json:"name"`
	N     *float64             `json:"n"`
	P     fuzzPoint            `json:"p"`
	Opt   fuzzPoint            `json:"opt,omitzero"`
	List  []fuzzPoint          `json:"list,omitempty"`
	Map   map[string]fuzzPoint `json:"map,omitempty"`
	Raw   codec.Raw            `json:"raw,omitempty"`
	Any   any                  `json:"any,omitempty"`
	Small int8                 `json:"small,omitempty"`
	Skip  int                  `json:"-"`
	Multi []string             `json:"multi,omitempty"`
}

// FuzzFunc feeds valid params to a typed handler: it never panics, answers
// either a P or a -32602 *codec.Error (for a duplicated name exactly when
// there is one), and the decoder of the fast path (sonic on this platform)
// and the one of the error path (codec.ExplainExact) agree: the same
// verdict and the same value, case included, so that a refused decode is
// always named and an accepted one is never refused.
func FuzzFunc(f *testing.F) {
	for _, s := range []string{
		`{"name":"a","p":{"x":1}}`,
		`{"NAME":"a","name":"b","p":{"X":1,"x":0},"opt":{"y":2}}`,
		`{"name":"a","p":{"x":1},"list":[{"X":1},{}],"map":{"k":{"Y":1}},"raw":[1,{"a":2}],"any":{"X":1}}`,
		`["a",1.5,{"x":1},{"x":2}]`,
		`["a"]`,
		`[]`,
		`{}`,
		`{"name":1}`,
		`{"p":[1]}`,
		`{"n\u0061me":"\u0041","p":{"\u0078":0}}`,
		`{"name":"a","p":{"x":1},"p":{"y":1}}`,
		`{"multi":["a",2]}`,
		`{"name":"a","\u006eame":"b"}`,
		`{"map":{"k":{"x":1},"k":{"x":2}}}`,
		`["a",1,{"x":1,"x":2}]`,
		`{"name":"a","p":{"x":1},"small":128}`,
		`{"name":"a","p":{"x":1},"list":[{"x":1},{"x":1e3},{"x":"1"}]}`,
		`{"name":"a","p":{"x":1},"n":1e400}`,
		`{"name":"\ud800","p":{"x":-0}}`,
	} {
		f.Add([]byte(s))
	}
	s := codec.NewScanner(nil)
	h := Func(func(_ context.Context, p fuzzParams) (fuzzParams, error) { return p, nil })
	f.Fuzz(func(t *testing.T, params []byte) {
		if k := codec.KindOf(params); !s.Valid(params) || k != codec.ValueObject && k != codec.ValueArray {
			return // the connection passes only arrays and objects it validated
		}
		_, err := h.Handle(context.Background(), &Request{Params: params})
		var e *codec.Error
		if err != nil && (!errors.As(err, &e) || e.Code != codec.CodeInvalidParams) {
			t.Fatalf("%s: error %v, want a -32602 *codec.Error", params, err)
		}
		if dup := codec.DuplicateName(params) >= 0; dup != (e != nil && e.Message == "Invalid params: duplicated member") {
			t.Fatalf("%s: duplicated name %v, error %v", params, dup, err)
		}
		if e == errRefused || e == errMalformed {
			t.Fatalf("%s: %v: the error path could not name the culprit", params, err)
		}
		if codec.KindOf(params) != codec.ValueObject || codec.DuplicateName(params) >= 0 {
			return
		}
		var fast, slow fuzzParams
		ferr := codec.UnmarshalExact(params, &fast)
		serr := codec.ExplainExact(params, &slow)
		if (ferr == nil) != (serr == nil) || ferr == nil && !reflect.DeepEqual(fast, slow) {
			t.Fatalf("%s: fast path %+v, %v; error path %+v, %v", params, fast, ferr, slow, serr)
		}
	})
}
