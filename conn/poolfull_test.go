package conn_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/pool"
	"github.com/mcpwire/mcpwire/router"
)

// newFullPool returns a pool of one worker and a queue of one, under Block:
// the third task of a burst finds it full.
func newFullPool(t *testing.T) *pool.Pool {
	t.Helper()
	p, err := pool.New(&pool.Options{Workers: 1, Queue: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := p.Close(ctx); err != nil {
			t.Errorf("pool Close: %v", err)
		}
	})
	return p
}

// A reader that finds the pool full does not wait there while a handler
// waits for the peer's answer to its call, which only the reader can read:
// it refuses the request -32000 and reads on. Before, it waited in Submit
// for good, and the handler for the answer: a deadlock.
func TestConn_fullPoolDoesNotStopTheReaderFromAnsweringCalls(t *testing.T) {
	r := router.New()
	if err := r.Register("ask", router.HandlerFunc(func(ctx context.Context, _ *router.Request) (any, error) {
		var v int
		err := conn.FromContext(ctx).Call(ctx, "q", nil, &v)
		return v, err
	}), nil); err != nil {
		t.Fatal(err)
	}
	_, p := serve(t, r, &conn.Options{Pool: newFullPool(t)})
	p.send(strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"ask"}`,
		`{"jsonrpc":"2.0","id":2,"method":"ask"}`,
		`{"jsonrpc":"2.0","id":3,"method":"ask"}`,
	}, "\n"))
	answered := map[float64]bool{}
	for len(answered) < 3 {
		m := p.recvObj() // without the fix: nothing comes, and this fails after 10 s
		if m["method"] == "q" {
			p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%v,"result":7}`, m["id"]))
			continue
		}
		id, _ := m["id"].(float64)
		if answered[id] {
			t.Fatalf("id %v answered twice", id)
		}
		answered[id] = true
		if m["result"] != float64(7) && (m["error"] == nil || errCode(t, m) != -32000) {
			t.Fatalf("id %v: %v, want 7 or -32000", id, m)
		}
	}
	if !answered[1] || !answered[2] || !answered[3] {
		t.Fatalf("answered %v, want 1, 2 and 3", answered)
	}
}

// A reader that waits for room in a full pool first lets the peer have the
// answers it holds: an inline answer is not held back behind a long
// handler. Before, it stayed in the reader's buffer until the pool had
// room.
func TestConn_fullPoolDoesNotHoldBackAnswersReady(t *testing.T) {
	release := make(chan struct{})
	r := router.New()
	if err := r.Register("hold", router.HandlerFunc(func(ctx context.Context, _ *router.Request) (any, error) {
		select {
		case <-release:
		case <-ctx.Done():
		}
		return "held", nil
	}), nil); err != nil {
		t.Fatal(err)
	}
	if err := r.Register("now", router.HandlerFunc(func(context.Context, *router.Request) (any, error) {
		return "now", nil
	}), &router.MethodOptions{Inline: true}); err != nil {
		t.Fatal(err)
	}
	_, p := serve(t, r, &conn.Options{Pool: newFullPool(t)})
	// One write: the reader finds them all buffered, so it holds the
	// answer to 3 while it serves 4, for which the pool is full.
	p.send(strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"hold"}`,
		`{"jsonrpc":"2.0","id":2,"method":"hold"}`,
		`{"jsonrpc":"2.0","id":3,"method":"now"}`,
		`{"jsonrpc":"2.0","id":4,"method":"hold"}`,
	}, "\n"))
	if m := p.recvObj(); m["id"] != float64(3) || m["result"] != "now" { // without the fix: fails after 10 s
		t.Fatalf("first answer %v, want id 3's", m)
	}
	close(release)
	answered := map[float64]bool{}
	for range 3 {
		m := p.recvObj()
		if m["result"] != "held" {
			t.Fatalf("%v, want a result", m)
		}
		answered[m["id"].(float64)] = true
	}
	if !answered[1] || !answered[2] || !answered[4] {
		t.Fatalf("answered %v, want 1, 2 and 4", answered)
	}
}
