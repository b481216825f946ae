package router_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/router"
)

// mapCache is a Cache for tests: results by method and params as given
// (no canonical form), no single flight.
type mapCache struct {
	mu      sync.Mutex
	m       map[string][]byte
	lookups int
}

func newMapCache() *mapCache { return &mapCache{m: map[string][]byte{}} }

func (c *mapCache) Lookup(method string, params []byte) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lookups++
	res, ok := c.m[method+"\x00"+string(params)]
	return res, ok
}

func (c *mapCache) Do(_ context.Context, method string, params []byte, fill func() ([]byte, error)) ([]byte, error) {
	if res, ok := c.Lookup(method, params); ok {
		return res, nil
	}
	res, err := fill()
	if err == nil {
		c.mu.Lock()
		c.m[method+"\x00"+string(params)] = res
		c.mu.Unlock()
	}
	return res, err
}

func TestRegister_refusesCacheWithInlineOrIntercept(t *testing.T) {
	r := router.New()
	h := constHandler("x")
	for _, opts := range []*router.MethodOptions{
		{Cache: newMapCache(), Inline: true},
		{Cache: newMapCache(), Intercept: interceptorFunc(func(*router.Request) ([]byte, bool) { return nil, false })},
	} {
		if err := r.Register("m", h, opts); !errors.Is(err, router.ErrCacheConflict) {
			t.Errorf("%+v: %v, want ErrCacheConflict", opts, err)
		}
	}
	if _, ok := r.Lookup([]byte("m")); ok {
		t.Fatal("a refused method was registered")
	}
}

type interceptorFunc func(*router.Request) ([]byte, bool)

func (f interceptorFunc) Intercept(req *router.Request) ([]byte, bool) { return f(req) }

// TestRegister_cacheEncodesOnceAndServesHitsFromTheInterceptor: the miss
// goes through the handler, its result is stored encoded (a copy, not the
// handler's bytes), and the entry's interceptor answers the next call.
func TestRegister_cacheEncodesOnceAndServesHitsFromTheInterceptor(t *testing.T) {
	c := newMapCache()
	runs := 0
	frame := []byte(`{"v":[1,2]}`) // stands for the request's frame
	r := router.New()
	err := r.Register("get", router.HandlerFunc(func(_ context.Context, req *router.Request) (any, error) {
		runs++
		if string(req.Params) == "[0]" {
			return map[string]int{"n": 1}, nil
		}
		return codec.Raw(frame), nil // a view the handler does not own
	}), &router.MethodOptions{Cache: c})
	if err != nil {
		t.Fatal(err)
	}
	e, _ := r.Lookup([]byte("get"))
	req := &router.Request{Method: "get", ID: []byte("1"), Params: []byte("[1]")}
	if _, ok := e.Intercept.Intercept(req); ok {
		t.Fatal("hit on an empty cache")
	}
	v, err := e.Handler.Handle(context.Background(), req)
	if raw, ok := v.(codec.Raw); err != nil || !ok || string(raw) != string(frame) {
		t.Fatalf("miss answered %#v, %v; want codec.Raw %s", v, err, frame)
	}
	copy(frame, `{"v":[9,9]}`) // the frame is reused for the next read
	res, ok := e.Intercept.Intercept(req)
	if !ok || string(res) != `{"v":[1,2]}` || runs != 1 {
		t.Fatalf("hit: %s %v after %d runs; want the stored copy after 1", res, ok, runs)
	}

	req.Params = []byte("[0]")
	if _, err := e.Handler.Handle(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if res, ok := e.Intercept.Intercept(req); !ok || string(res) != `{"n":1}` {
		t.Fatalf("a Go value is stored encoded: %s %v", res, ok)
	}
}

func TestRegister_cacheDoesNotStoreErrorsOrNotifications(t *testing.T) {
	c := newMapCache()
	fail := true
	r := router.New()
	r.Register("m", router.HandlerFunc(func(context.Context, *router.Request) (any, error) {
		if fail {
			return nil, codec.ErrInvalidParams
		}
		return math.Inf(1), nil // sonic cannot encode it
	}), &router.MethodOptions{Cache: c})
	e, _ := r.Lookup([]byte("m"))
	call := &router.Request{Method: "m", ID: []byte("1")}
	if _, err := e.Handler.Handle(context.Background(), call); !errors.Is(err, codec.ErrInvalidParams) {
		t.Fatalf("handler error: %v", err)
	}
	fail = false
	if _, err := e.Handler.Handle(context.Background(), call); err == nil || !strings.Contains(err.Error(), "cannot encode") {
		t.Fatalf("unencodable result: %v", err)
	}
	note := &router.Request{Method: "m"}
	if _, err := e.Handler.Handle(context.Background(), note); err != nil {
		t.Fatal(err) // a notification's result is not encoded at all
	}
	if len(c.m) != 0 || c.lookups != 2 {
		t.Fatalf("stored %v after %d lookups; want nothing, and none for the notification", c.m, c.lookups)
	}
}

// TestRegister_cacheSitsInsideMiddleware: middleware added before or after
// a cached method is registered wraps the cache, so it sees every call
// that reaches the handler side, and the cache survives the rewrap.
func TestRegister_cacheSitsInsideMiddleware(t *testing.T) {
	c := newMapCache()
	r := router.New()
	runs, seen := 0, 0
	r.Register("m", router.HandlerFunc(func(context.Context, *router.Request) (any, error) {
		runs++
		return 1, nil
	}), &router.MethodOptions{Cache: c})
	r.Use(func(next router.Handler) router.Handler {
		return router.HandlerFunc(func(ctx context.Context, req *router.Request) (any, error) {
			seen++
			return next.Handle(ctx, req)
		})
	})
	e, _ := r.Lookup([]byte("m"))
	for range 2 {
		if _, err := e.Handler.Handle(context.Background(), &router.Request{Method: "m", ID: []byte("1")}); err != nil {
			t.Fatal(err)
		}
	}
	if runs != 1 || seen != 2 || e.Intercept == nil {
		t.Fatalf("handler ran %d times, middleware saw %d calls, interceptor %v; want 1, 2, set", runs, seen, e.Intercept)
	}
}

func TestEntry_Intercepted_isTheMiddlewareAroundTheInterceptorsResult(t *testing.T) {
	r := router.New()
	if err := r.Register("m", constHandler("x"), &router.MethodOptions{Cache: newMapCache()}); err != nil {
		t.Fatal(err)
	}
	if err := r.Register("plain", constHandler("x"), nil); err != nil {
		t.Fatal(err)
	}
	e, _ := r.Lookup([]byte("m"))
	if e.Intercepted != nil {
		t.Fatal("Intercepted set without middleware: a hit would pay for nothing")
	}
	r.Use(func(next router.Handler) router.Handler { return next }) // does nothing
	if e, _ = r.Lookup([]byte("m")); e.Intercepted != nil {
		t.Fatal("Intercepted set under a middleware that returns its next handler")
	}
	var seen []string
	r.Use(func(next router.Handler) router.Handler {
		return router.HandlerFunc(func(ctx context.Context, req *router.Request) (any, error) {
			seen = append(seen, string(req.Intercepted))
			if string(req.Params) == `["deny"]` {
				return nil, codec.NewError(codec.CodeForbidden, "no")
			}
			return next.Handle(ctx, req)
		})
	})
	e, _ = r.Lookup([]byte("m"))
	if e.Intercepted == nil {
		t.Fatal("no Intercepted under middleware: hits would skip it")
	}
	if p, _ := r.Lookup([]byte("plain")); p.Intercepted != nil {
		t.Error("Intercepted set for a method without an interceptor")
	}
	v, err := e.Intercepted.Handle(context.Background(), &router.Request{Method: "m", ID: []byte("1"), Intercepted: []byte(`"stored"`)})
	if raw, ok := v.(codec.Raw); err != nil || !ok || string(raw) != `"stored"` {
		t.Fatalf("let through: %v, %v, want the stored result as a codec.Raw", v, err)
	}
	_, err = e.Intercepted.Handle(context.Background(), &router.Request{Method: "m", ID: []byte("1"), Params: []byte(`["deny"]`), Intercepted: []byte(`"stored"`)})
	if !errors.Is(err, codec.NewError(codec.CodeForbidden, "")) {
		t.Fatalf("refused: %v, want the middleware's -32010", err)
	}
	if _, err := e.Intercepted.Handle(context.Background(), &router.Request{Method: "m", ID: []byte("1")}); !errors.Is(err, codec.ErrInternal) {
		t.Fatalf("without a result: %v, want -32603", err)
	}
	if len(seen) != 3 || seen[0] != `"stored"` {
		t.Errorf("middleware saw %q", seen)
	}
}
