//go:build !race

package router_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/mcpwire/mcpwire/router"
)

func TestLookup_allocs(t *testing.T) {
	r := router.New()
	for i := range 100 {
		_ = r.Register("method/"+strconv.Itoa(i), constHandler("x"), nil)
	}
	r.Use(tag("mw"))
	hit, miss := []byte("method/42"), []byte("method/missing")
	if n := testing.AllocsPerRun(1000, func() {
		if _, ok := r.Lookup(hit); !ok {
			t.Fatal("miss")
		}
		if _, ok := r.Lookup(miss); ok {
			t.Fatal("hit")
		}
	}); n != 0 {
		t.Fatalf("Lookup allocates %v times, want 0", n)
	}
}

// TestFunc_allocs states the cost of decoding typed params, per call:
// one copy of the params (decoded strings point into it); the P they are
// decoded into is pooled. The result is boxed into an any: a small struct
// costs one more allocation, a pointer or a zero-sized value none. Checking required members costs
// nothing more, even when a zero value makes it walk the params.
func TestFunc_allocs(t *testing.T) {
	h := router.Func(func(_ context.Context, p subtractParams) (*int, error) {
		n := p.Minuend - p.Subtrahend
		return &n, nil
	})
	h2 := router.Func(func(_ context.Context, p subtractParams) (struct{}, error) { return struct{}{}, nil })
	ctx := context.Background()
	tests := []struct {
		name   string
		h      router.Handler
		params string
		want   float64
	}{
		{"named", h2, `{"minuend":42,"subtrahend":23}`, 1},
		{"named/zero member (walks the params)", h2, `{"minuend":0,"subtrahend":23}`, 1},
		{"positional", h2, `[42,23]`, 1},
		{"absent", h2, ``, 0},
		{"named/pointer result", h, `{"minuend":42,"subtrahend":23}`, 2},
	}
	for _, tt := range tests {
		req := &router.Request{Method: "subtract", ID: []byte("1")}
		if tt.params != "" {
			req.Params = []byte(tt.params)
		}
		n := testing.AllocsPerRun(1000, func() {
			if _, err := tt.h.Handle(ctx, req); err != nil {
				t.Fatal(err)
			}
		})
		if n != tt.want {
			t.Errorf("%s: %v allocations per call, want %v", tt.name, n, tt.want)
		}
	}
}

// TestFunc_appendAllocs: HandleAppend encodes a string result straight
// into the response, one allocation fewer than Handle, which boxes it.
func TestFunc_appendAllocs(t *testing.T) {
	h := router.Func(func(_ context.Context, p []string) (string, error) { return p[0], nil }).(router.AppendHandler)
	req := &router.Request{Method: "echo", ID: []byte("1"), Params: []byte(`["hello, world"]`)}
	ctx := context.Background()
	dst := make([]byte, 0, 64)
	boxed := testing.AllocsPerRun(1000, func() {
		if _, err := h.Handle(ctx, req); err != nil {
			t.Fatal(err)
		}
	})
	appended := testing.AllocsPerRun(1000, func() {
		if out, err := h.HandleAppend(ctx, req, dst[:0]); err != nil || string(out) != `"hello, world"` {
			t.Fatalf("HandleAppend = %s, %v", out, err)
		}
	})
	// the params' copy, the slice; and for Handle the boxed string
	if boxed != 3 || appended != 2 {
		t.Errorf("allocations per call: Handle %v, HandleAppend %v; want 3 and 2", boxed, appended)
	}
}
