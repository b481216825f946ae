package conn_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/cache"
	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/router"
)

// The router's middleware applies to a cache hit as to a miss, on every
// path a hit is answered by: alone on the reader, in a batch, and through
// ServeBody. Before, the cache answered hits before any middleware ran.
func TestConn_middlewareGuardsInterceptedAnswers(t *testing.T) {
	var refuse atomic.Bool
	var hitsSeen atomic.Int32
	denied := codec.NewError(codec.CodeForbidden, "denied")
	r := router.New()
	r.Use(func(next router.Handler) router.Handler {
		return router.HandlerFunc(func(ctx context.Context, req *router.Request) (any, error) {
			if req.Intercepted != nil {
				hitsSeen.Add(1)
			}
			if refuse.Load() {
				return nil, denied
			}
			return next.Handle(ctx, req)
		})
	})
	var runs atomic.Int32
	c := cache.New(nil)
	if err := r.Register("list", router.HandlerFunc(func(context.Context, *router.Request) (any, error) {
		runs.Add(1)
		return []int{1, 2}, nil
	}), &router.MethodOptions{Cache: c.Method(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	s, p := serve(t, r, nil)
	const call = `{"jsonrpc":"2.0","id":1,"method":"list"}`
	if m := p.recvAfter(call); m["error"] != nil {
		t.Fatalf("miss: %v", m)
	}
	refuse.Store(true)
	if m := p.recvAfter(call); m["error"] == nil || errCode(t, m) != int(codec.CodeForbidden) {
		t.Fatalf("hit alone in its frame: %v, want -32010", m)
	}
	p.send(`[` + call + `,` + call + `]`)
	batch, ok := p.recv().([]any)
	if !ok || len(batch) != 2 {
		t.Fatalf("batch answer %v", batch)
	}
	for _, e := range batch {
		if m := e.(map[string]any); m["error"] == nil || errCode(t, m) != int(codec.CodeForbidden) {
			t.Fatalf("hit in a batch: %v, want -32010", m)
		}
	}
	var body string
	if err := s.ServeBody(context.Background(), []byte(call), func(msg []byte) { body = string(msg) }); err != nil {
		t.Fatal(err)
	}
	if body != `{"jsonrpc":"2.0","id":1,"error":{"code":-32010,"message":"denied"}}` {
		t.Fatalf("hit through ServeBody: %s, want -32010", body)
	}
	refuse.Store(false)
	if m := p.recvAfter(call); m["error"] != nil || len(m["result"].([]any)) != 2 {
		t.Fatalf("hit let through: %v", m)
	}
	if n := runs.Load(); n != 1 {
		t.Errorf("handler ran %d times, want 1: the calls after the first were no hits", n)
	}
	if n := hitsSeen.Load(); n != 5 {
		t.Errorf("middleware saw %d hits, want 5", n)
	}
}

// recvAfter sends line and returns the one answer.
func (p *peer) recvAfter(line string) map[string]any {
	p.t.Helper()
	p.send(line)
	return p.recvObj()
}
