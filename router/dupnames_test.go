package router_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/router"
)

// TestFunc_refusesDuplicatedNames: params with a member name given twice
// in one object (escaped or not, at any depth, by name or inside a
// positional element) are answered -32602 naming the member and its JSON
// Pointer, and the function never runs; sonic alone keeps the last value.
func TestFunc_refusesDuplicatedNames(t *testing.T) {
	type inner struct {
		X int `json:"x"`
	}
	type params struct {
		A int            `json:"a"`
		B inner          `json:"b"`
		M map[string]int `json:"m"`
	}
	ran := 0
	h := router.Func(func(_ context.Context, p params) (int, error) {
		ran++
		return p.A + p.B.X, nil
	})
	for _, tc := range []struct{ params, member, pointer string }{
		{`{"a":1,"b":{"x":2},"a":40}`, "a", "/params/a"},
		{`{"a":1,"b":{"x":2,"\u0078":40}}`, "x", "/params/b/x"},
		{`{"a":1,"b":{"x":2},"m":{"k":1,"k":2}}`, "k", "/params/m/k"},
		{`[1,{"x":2,"x":3}]`, "x", "/params/1/x"},
		// Once decoded last-wins (the last "b" counted, required members
		// included); now refused.
		{`{"a":1,"a":2,"b":{"x":3}}`, "a", "/params/a"},
		{`{"a":1,"b":{"x":1},"b":{}}`, "b", "/params/b"},
	} {
		_, err := h.Handle(context.Background(), &router.Request{Method: "m", ID: []byte("1"), Params: []byte(tc.params)})
		var ce *codec.Error
		if !errors.As(err, &ce) || ce.Code != codec.CodeInvalidParams {
			t.Fatalf("%s: err %v, want -32602", tc.params, err)
		}
		var data struct{ Member, Pointer string }
		if raw, ok := ce.Data.(codec.Raw); !ok || json.Unmarshal(raw, &data) != nil || data.Member != tc.member || data.Pointer != tc.pointer {
			t.Errorf("%s: data %v; want member %q, pointer %q", tc.params, ce.Data, tc.member, tc.pointer)
		}
	}
	if ran != 0 {
		t.Fatalf("the function ran %d times on duplicated names", ran)
	}
	r, err := h.Handle(context.Background(), &router.Request{Method: "m", ID: []byte("1"), Params: []byte(`{"a":1,"b":{"x":2},"m":{"k":1,"j":2}}`)})
	if err != nil || r != 3 || ran != 1 {
		t.Fatalf("without a duplicate: %v %v, ran %d", r, err, ran)
	}
}
