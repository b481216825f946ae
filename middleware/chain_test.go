package middleware_test

import (
	"context"
	"slices"
	"testing"

	"github.com/mcpwire/mcpwire/middleware"
	"github.com/mcpwire/mcpwire/router"
)

// tag returns middleware that appends name to *trail when a call enters.
func tag(trail *[]string, name string) router.Middleware {
	return func(next router.Handler) router.Handler {
		return router.HandlerFunc(func(ctx context.Context, req *router.Request) (any, error) {
			*trail = append(*trail, name)
			return next.Handle(ctx, req)
		})
	}
}

func TestChain_firstIsOutermost(t *testing.T) {
	var trail []string
	r := router.New()
	r.Use(middleware.Chain(tag(&trail, "a"), nil, tag(&trail, "b")), tag(&trail, "c"))
	r.Register("m", router.HandlerFunc(func(context.Context, *router.Request) (any, error) {
		trail = append(trail, "handler")
		return nil, nil
	}), nil)
	e, _ := r.Lookup([]byte("m"))
	e.Handler.Handle(context.Background(), &router.Request{Method: "m"})
	if want := []string{"a", "b", "c", "handler"}; !slices.Equal(trail, want) {
		t.Errorf("order %v, want %v", trail, want)
	}
}

func TestChain_emptyReturnsTheHandler(t *testing.T) {
	h := &plain{}
	for _, c := range []router.Middleware{middleware.Chain(), middleware.Chain(nil, nil)} {
		if got := c(h); got != router.Handler(h) {
			t.Errorf("wrapped: %T", got)
		}
	}
}

func TestChain_panicsOnANilHandler(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("no panic")
		}
	}()
	middleware.Chain(func(router.Handler) router.Handler { return nil })(&plain{})
}
