package mcp_test

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/router"
)

// Use wraps the protocol's methods and the user's, those added later too;
// a session knows the peer it was bound with.
func TestServer_useWrapsEveryMethod(t *testing.T) {
	srv := echoServer(t)
	var mu sync.Mutex
	var seen []string
	srv.Use(func(next router.Handler) router.Handler {
		return router.HandlerFunc(func(ctx context.Context, req *router.Request) (any, error) {
			if p := conn.FromContext(ctx).Peer(); p.Transport != "stream" {
				t.Errorf("%s: peer %+v", req.Method, p)
			}
			mu.Lock()
			seen = append(seen, req.Method)
			mu.Unlock()
			if req.Method == "x/refused" {
				return nil, codec.NewError(codec.CodeForbidden, "no")
			}
			return next.Handle(ctx, req)
		})
	})
	if err := srv.AddMethod("x/refused", router.HandlerFunc(func(context.Context, *router.Request) (any, error) {
		t.Error("the middleware let x/refused through")
		return nil, nil
	}), nil); err != nil {
		t.Fatal(err)
	}
	cl := newClient(t, srv)
	cl.initialize(mcp.LatestVersion)
	cl.mustCall("tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"message": "hi"}}, nil)
	if e := cl.callErr("x/refused", nil); e == nil || e.Code != codec.CodeForbidden {
		t.Errorf("x/refused answered %v", e)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, m := range []string{"initialize", "tools/call", "x/refused"} {
		if !slices.Contains(seen, m) {
			t.Errorf("the middleware did not see %s: %v", m, seen)
		}
	}
}
