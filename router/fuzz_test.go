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
	Skip  int                  `json:"-"`
	Multi []string             `json:"multi,omitempty"`
}

// FuzzFunc feeds valid params to a typed handler: it never panics, answers
// either a P or a -32602 *codec.Error (for a duplicated name exactly when
// there is one), and gives the same answer with
// unfold forced on (the path of platforms where sonic folds case) as
// without.
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
	} {
		f.Add([]byte(s))
	}
	s := codec.NewScanner(nil)
	h := Func(func(_ context.Context, p fuzzParams) (fuzzParams, error) { return p, nil }).(*funcHandler[fuzzParams, fuzzParams])
	u := Func(func(_ context.Context, p fuzzParams) (fuzzParams, error) { return p, nil }).(*funcHandler[fuzzParams, fuzzParams])
	u.pl.fold = true
	f.Fuzz(func(t *testing.T, params []byte) {
		if k := codec.KindOf(params); !s.Valid(params) || k != codec.ValueObject && k != codec.ValueArray {
			return // the connection passes only arrays and objects it validated
		}
		got, err := h.Handle(context.Background(), &Request{Params: params})
		ugot, uerr := u.Handle(context.Background(), &Request{Params: params})
		var e *codec.Error
		if err != nil && (!errors.As(err, &e) || e.Code != codec.CodeInvalidParams) {
			t.Fatalf("%s: error %v, want a -32602 *codec.Error", params, err)
		}
		if dup := codec.DuplicateName(params) >= 0; dup != (e != nil && e.Message == "Invalid params: duplicated member") {
			t.Fatalf("%s: duplicated name %v, error %v", params, dup, err)
		}
		if !reflect.DeepEqual(got, ugot) || (err == nil) != (uerr == nil) || err != nil && err.Error() != uerr.Error() {
			t.Fatalf("%s: %+v, %v; with unfold %+v, %v", params, got, err, ugot, uerr)
		}
	})
}
