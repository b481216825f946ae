package router_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/mcpwire/mcpwire/router"
)

func constHandler(v string) router.Handler {
	return router.HandlerFunc(func(context.Context, *router.Request) (any, error) { return v, nil })
}

func TestRouter_registerLookup(t *testing.T) {
	r := router.New()
	if _, ok := r.Lookup([]byte("a")); ok {
		t.Fatal("found a method in an empty router")
	}
	if err := r.Register("a", constHandler("A"), nil); err != nil {
		t.Fatal(err)
	}
	if err := r.Register("b", constHandler("B"), &router.MethodOptions{Inline: true}); err != nil {
		t.Fatal(err)
	}
	e, ok := r.Lookup([]byte("b"))
	if !ok || e.Method != "b" || !e.Inline {
		t.Fatalf("Lookup(b) = %+v, %v", e, ok)
	}
	if res, _ := e.Handler.Handle(context.Background(), &router.Request{}); res != "B" {
		t.Fatalf("b returned %v", res)
	}
	// Replace.
	if err := r.Register("b", constHandler("B2"), nil); err != nil {
		t.Fatal(err)
	}
	e2, _ := r.Lookup([]byte("b"))
	if res, _ := e2.Handler.Handle(context.Background(), &router.Request{}); res != "B2" || e2.Inline {
		t.Fatalf("replaced b: %v, inline %v", res, e2.Inline)
	}
	if res, _ := e.Handler.Handle(context.Background(), &router.Request{}); res != "B" || !e.Inline {
		t.Fatal("an Entry already returned changed")
	}
	if got := r.Methods(); !slices.Equal(got, []string{"a", "b"}) {
		t.Fatalf("Methods() = %v", got)
	}
	if !r.Unregister("a") || r.Unregister("a") {
		t.Fatal("Unregister(a) should report true then false")
	}
	if _, ok := r.Lookup([]byte("a")); ok {
		t.Fatal("a still found after Unregister")
	}
	// Exact match: no case folding, no prefix.
	for _, name := range []string{"B", "b ", "", "bb"} {
		if _, ok := r.Lookup([]byte(name)); ok {
			t.Errorf("Lookup(%q) found something", name)
		}
	}
}

func TestRouter_zeroValue(t *testing.T) {
	var r router.Router
	if _, ok := r.Lookup([]byte("x")); ok {
		t.Fatal("zero router found x")
	}
	if r.Unregister("x") || r.Methods() != nil {
		t.Fatal("zero router not empty")
	}
	r.Use(func(h router.Handler) router.Handler { return h })
	if err := r.Register("x", constHandler("X"), nil); err != nil {
		t.Fatal(err)
	}
	if _, ok := r.Lookup([]byte("x")); !ok {
		t.Fatal("x not found")
	}
}

func TestRouter_refusesNames(t *testing.T) {
	r := router.New()
	tests := []struct {
		name string
		h    router.Handler
		want error
	}{
		{"", constHandler(""), router.ErrEmptyName},
		{"rpc.discover", constHandler(""), router.ErrReservedName},
		{"rpc.", constHandler(""), router.ErrReservedName},
		{"x", nil, router.ErrNilHandler},
	}
	for _, tt := range tests {
		if err := r.Register(tt.name, tt.h, nil); !errors.Is(err, tt.want) {
			t.Errorf("Register(%q) = %v, want %v", tt.name, err, tt.want)
		}
	}
	// Only the exact "rpc." prefix is reserved.
	for _, name := range []string{"rpc", "RPC.x", "rpcx", "x.rpc.y"} {
		if err := r.Register(name, constHandler(name), nil); err != nil {
			t.Errorf("Register(%q) = %v", name, err)
		}
	}
	if got := len(r.Methods()); got != 4 {
		t.Fatalf("%d methods registered, want 4", got)
	}
}

// tag returns middleware that records its name around the call.
func tag(name string) router.Middleware {
	return func(next router.Handler) router.Handler {
		return router.HandlerFunc(func(ctx context.Context, req *router.Request) (any, error) {
			res, err := next.Handle(ctx, req)
			return name + "(" + fmt.Sprint(res) + ")", err
		})
	}
}

func TestRouter_middleware(t *testing.T) {
	r := router.New()
	_ = r.Register("before", constHandler("b"), nil)
	r.Use(tag("outer"), nil, tag("inner"))
	_ = r.Register("after", constHandler("a"), &router.MethodOptions{Inline: true})
	r.Use(tag("innermost"))
	r.Use() // no change

	for method, want := range map[string]string{
		"before": "outer(inner(innermost(b)))",
		"after":  "outer(inner(innermost(a)))",
	} {
		e, ok := r.Lookup([]byte(method))
		if !ok {
			t.Fatalf("%s not found", method)
		}
		res, _ := e.Handler.Handle(context.Background(), &router.Request{Method: method})
		if res != want {
			t.Errorf("%s: got %v, want %s", method, res, want)
		}
	}
	if e, _ := r.Lookup([]byte("after")); !e.Inline {
		t.Error("Use lost the Inline option")
	}
}

func TestRouter_middlewareNilHandlerPanics(t *testing.T) {
	r := router.New()
	_ = r.Register("x", constHandler("x"), nil)
	defer func() {
		if recover() == nil {
			t.Fatal("no panic")
		}
	}()
	r.Use(func(router.Handler) router.Handler { return nil })
}

// TestRouter_concurrent changes the table while many goroutines look methods
// up. Run it with -race. Every Entry a reader sees must be whole: its name
// matches the key and its handler answers for that name. Every tenth change
// waits until a reader has looked up after it, so reads and writes
// interleave however the goroutines are scheduled.
func TestRouter_concurrent(t *testing.T) {
	r := router.New()
	const methods = 32
	names := make([][]byte, methods)
	for i := range names {
		names[i] = []byte("m" + strconv.Itoa(i))
		if i%2 == 0 {
			_ = r.Register(string(names[i]), echoName(), nil)
		}
	}
	var stop atomic.Bool
	var wg sync.WaitGroup
	var lookups, found atomic.Int64
	for g := range 8 {
		wg.Go(func() {
			ctx := context.Background()
			for i := g; !stop.Load(); i++ {
				name := names[i%methods]
				e, ok := r.Lookup(name)
				lookups.Add(1)
				if !ok {
					continue
				}
				found.Add(1)
				if e.Method != string(name) {
					t.Errorf("Lookup(%s) returned %s", name, e.Method)
					return
				}
				res, _ := e.Handler.Handle(ctx, &router.Request{Method: e.Method})
				if s, _ := res.(string); len(s) < len(e.Method) || s[len(s)-len(e.Method):] != e.Method {
					t.Errorf("handler for %s returned %v", e.Method, res)
					return
				}
			}
		})
	}
	// readAfter waits until some reader has looked up after it was called.
	readAfter := func() {
		for n := lookups.Load(); lookups.Load() == n && !t.Failed(); {
			runtime.Gosched()
		}
	}
	var writers sync.WaitGroup
	for w := range 3 {
		writers.Go(func() {
			for i := range 300 {
				name := string(names[(i*7+w)%methods])
				switch i % 3 {
				case 0:
					_ = r.Register(name, echoName(), nil)
				case 1:
					r.Unregister(name)
				case 2:
					if i%30 == 2 {
						r.Use(func(next router.Handler) router.Handler { return next })
					}
				}
				if i%10 == 0 {
					readAfter()
				}
			}
		})
	}
	writers.Wait()
	stop.Store(true)
	wg.Wait()
	if found.Load() == 0 {
		t.Fatal("readers never found a method")
	}
}

func echoName() router.Handler {
	return router.HandlerFunc(func(_ context.Context, req *router.Request) (any, error) { return "ok:" + req.Method, nil })
}
