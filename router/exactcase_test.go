package router

import (
	"context"
	"reflect"
	"testing"

	"github.com/mcpwire/mcpwire/codec"
)

type foldInner struct {
	X int `json:"x"`
	Y int `json:"y,omitempty"`
}

type foldParams struct {
	Minuend    int                  `json:"minuend,omitempty"`
	Subtrahend int                  `json:"subtrahend,omitzero"`
	Inner      foldInner            `json:"inner,omitempty"`
	List       []foldInner          `json:"list,omitempty"`
	Map        map[string]foldInner `json:"map,omitempty"`
	Any        any                  `json:"any,omitempty"`
}

// TestFunc_exactCase: members whose names differ from the fields' by case
// only are unknown members, ignored, at any depth, by the decoder of the
// fast path and by the one that explains its failures alike.
func TestFunc_exactCase(t *testing.T) {
	h := Func(func(_ context.Context, p foldParams) (foldParams, error) { return p, nil })
	for _, tt := range []struct {
		name, params string
		want         foldParams
	}{
		{"top", `{"MINUEND":10,"subtrahend":3}`, foldParams{Subtrahend: 3}},
		{"top/last", `{"subtrahend":3,"Minuend":10}`, foldParams{Subtrahend: 3}},
		{"top/both", `{"minuend":1,"Minuend":10,"subtrahend":3}`, foldParams{Minuend: 1, Subtrahend: 3}},
		{"top/escaped", `{"M\u0049NUEND":10,"subtrahend":3}`, foldParams{Subtrahend: 3}},
		{"top/all", "{ \"MINUEND\" : 10 ,\n \"SUBTRAHEND\" : 3 }", foldParams{}},
		{"nested", `{"subtrahend":3,"inner":{"X":1,"x":2,"Y":3}}`, foldParams{Subtrahend: 3, Inner: foldInner{X: 2}}},
		{"in slice", `{"subtrahend":3,"list":[{"X":1},{"x":2,"Y":3}]}`, foldParams{Subtrahend: 3, List: []foldInner{{}, {X: 2}}}},
		{"in map", `{"subtrahend":3,"map":{"K":{"X":1,"y":4}}}`, foldParams{Subtrahend: 3, Map: map[string]foldInner{"K": {Y: 4}}}},
		{"any is a map", `{"subtrahend":3,"any":{"X":1}}`, foldParams{Subtrahend: 3, Any: map[string]any{"X": float64(1)}}},
		{"positional", `[10,3,{"X":1,"x":2}]`, foldParams{Minuend: 10, Subtrahend: 3, Inner: foldInner{X: 2}}},
		// A member the fields take only by folding case is not a wrong type.
		{"folded wrong type ignored", `{"subtrahend":3,"Inner":"x","inner":{"x":1,"X":"y"}}`, foldParams{Subtrahend: 3, Inner: foldInner{X: 1}}},
	} {
		got, err := h.Handle(context.Background(), &Request{Params: []byte(tt.params)})
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: %s gives %+v, %v; want %+v", tt.name, tt.params, got, err, tt.want)
		}
		if codec.KindOf([]byte(tt.params)) != codec.ValueObject {
			continue
		}
		var slow foldParams
		if err := codec.ExplainExact([]byte(tt.params), &slow); err != nil || !reflect.DeepEqual(slow, tt.want) {
			t.Errorf("%s: the error path's decoder gives %+v, %v; want %+v", tt.name, slow, err, tt.want)
		}
	}
}
