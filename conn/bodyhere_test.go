package conn_test

import (
	"context"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/router"
)

// whereRouter has a method "where" answering whether its handler runs
// on a goroutine that called ServeBodySink (its stack holds that frame)
// rather than on a pool worker.
func whereRouter(t *testing.T) *router.Router {
	r := router.New()
	if err := r.Register("where", router.HandlerFunc(func(context.Context, *router.Request) (any, error) {
		buf := make([]byte, 64<<10)
		stack := string(buf[:runtime.Stack(buf, false)])
		return strings.Contains(stack, "conn.(*Conn).ServeBodySink"), nil
	}), nil); err != nil {
		t.Fatal(err)
	}
	return r
}

// serveWhere serves body with sink (Answer set here) and returns the
// answer.
func serveWhere(t *testing.T, c *conn.Conn, body string, sink conn.BodySink) string {
	t.Helper()
	var got string
	sink.Answer = func(msg []byte) { got = string(msg) }
	if err := c.ServeBodySink(context.Background(), []byte(body), sink); err != nil {
		t.Fatal(err)
	}
	return got
}

// BodySink.Here runs a request alone in its body on the goroutine
// serving it; without it, or in a batch, or on a connection with a
// HandlerTimeout, the request goes to the pool.
func TestServeBodySink_hereRunsOnTheCallersGoroutine(t *testing.T) {
	const call = `{"jsonrpc":"2.0","id":1,"method":"where"}`
	c := conn.NewStream(conn.NewMessageStream(newOutbox(), nil), &conn.Options{Router: whereRouter(t)})
	defer c.Close()
	if got, want := serveWhere(t, c, call, conn.BodySink{Here: true}), `{"jsonrpc":"2.0","id":1,"result":true}`; got != want {
		t.Errorf("with Here: %s, want %s", got, want)
	}
	if got, want := serveWhere(t, c, call, conn.BodySink{}), `{"jsonrpc":"2.0","id":1,"result":false}`; got != want {
		t.Errorf("without Here: %s, want %s", got, want)
	}
	if got, want := serveWhere(t, c, "["+call+"]", conn.BodySink{Here: true}), `[{"jsonrpc":"2.0","id":1,"result":false}]`; got != want {
		t.Errorf("a batch with Here: %s, want %s", got, want)
	}

	timed := conn.NewStream(conn.NewMessageStream(newOutbox(), nil),
		&conn.Options{Router: whereRouter(t), HandlerTimeout: time.Minute})
	defer timed.Close()
	if got, want := serveWhere(t, timed, call, conn.BodySink{Here: true}), `{"jsonrpc":"2.0","id":1,"result":false}`; got != want {
		t.Errorf("with Here and a HandlerTimeout: %s, want %s", got, want)
	}
}

// When ServeBodySink's context ends while a handler runs on its
// goroutine (BodySink.Here), the handler's context ends: nobody else
// waits on it.
func TestServeBodySink_hereEndsWithItsContext(t *testing.T) {
	started := make(chan struct{})
	r := router.New()
	if err := r.Register("block", router.HandlerFunc(func(ctx context.Context, _ *router.Request) (any, error) {
		close(started)
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(10 * time.Second):
			return "not cancelled", nil
		}
	}), nil); err != nil {
		t.Fatal(err)
	}
	c := conn.NewStream(conn.NewMessageStream(newOutbox(), nil), &conn.Options{Router: r})
	defer c.Close()

	serve := func(ctx context.Context) string {
		var got string
		err := c.ServeBodySink(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"block"}`),
			conn.BodySink{Here: true, Answer: func(msg []byte) { got = string(msg) }})
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-started
		cancel()
	}()
	if got := serve(ctx); !strings.Contains(got, `"error"`) || strings.Contains(got, "not cancelled") {
		t.Fatalf("answer %s, want the cancellation's error", got)
	}
	// A context ended before the handler starts: it starts cancelled.
	started = make(chan struct{})
	if got := serve(ctx); !strings.Contains(got, `"error"`) || strings.Contains(got, "not cancelled") {
		t.Fatalf("ended before: answer %s, want the cancellation's error", got)
	}
}
