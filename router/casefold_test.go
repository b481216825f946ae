package router

import (
	"context"
	"reflect"
	"strings"
	"testing"
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

// foldCases are params whose members differ from the fields' names by case
// only, and what an exact decoder makes of them.
var foldCases = []struct {
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
}

// TestFunc_exactCase runs the cases twice: with the decoder of this platform,
// and with unfold forced on, as on a platform where sonic falls back to
// encoding/json (which folds case whatever the options say).
func TestFunc_exactCase(t *testing.T) {
	t.Logf("sonic folds case on this platform: %v", foldsCase())
	for _, force := range []bool{false, true} {
		h := Func(func(_ context.Context, p foldParams) (foldParams, error) { return p, nil }).(*funcHandler[foldParams, foldParams])
		h.pl.fold = h.pl.fold || force
		for _, tt := range foldCases {
			got, err := h.Handle(context.Background(), &Request{Params: []byte(tt.params)})
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("unfold %v: %s: %s gives %+v, %v; want %+v", force, tt.name, tt.params, got, err, tt.want)
			}
		}
	}
}

func TestUnfold(t *testing.T) {
	typ := reflect.TypeFor[foldParams]()
	// want is the result without its white space ("" for nil); the result
	// keeps the length of the input, so offsets stay valid.
	tests := []struct{ in, want string }{
		{`{"minuend":1}`, ``},
		{`{"MINUEND":1}`, `{}`},
		{`{"MINUEND":1,"subtrahend":2}`, `{"subtrahend":2}`},
		{`{"subtrahend":2, "MINUEND":1}`, `{"subtrahend":2}`},
		{`{"MINUEND":1 , "SUBTRAHEND":2 , "any":{"X":0}}`, `{"any":{"X":0}}`},
		{`{"inner":{"X":[1,{"a":"}"}]}}`, `{"inner":{}}`},
	}
	for _, tt := range tests {
		got := unfold([]byte(tt.in), typ, structFields(typ), false)
		if strings.Join(strings.Fields(string(got)), "") != tt.want || got != nil && len(got) != len(tt.in) {
			t.Errorf("unfold(%s) = %q, want %s with white space", tt.in, got, tt.want)
		}
	}
}
