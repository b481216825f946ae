package conn_test

import (
	"context"
	"errors"
	"testing"

	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/router"
)

// A sink that closes Detach ends ServeBodySink's wait with ErrDetached
// while the handler runs on; the sinks stay in place: the handler's later
// messages, its answer and then Settled reach them after ServeBodySink
// returned, none goes to the session's stream.
func TestServeBodySink_detachKeepsTheSinks(t *testing.T) {
	r := router.New()
	release := make(chan struct{})
	r.Register("stream", router.HandlerFunc(func(ctx context.Context, req *router.Request) (any, error) {
		c := conn.FromContext(ctx)
		if err := c.Notify(ctx, "first", nil); err != nil {
			return nil, err
		}
		<-release
		return "done", c.Notify(ctx, "second", nil)
	}), nil)
	streamed := newOutbox()
	c := conn.NewStream(conn.NewMessageStream(streamed, nil), &conn.Options{Router: r})
	defer c.Close()

	rec := newRecorder()
	detach := make(chan struct{})
	related := rec.sink("related")
	sink := conn.BodySink{
		Answer: rec.sink("answer"),
		Related: func(msg []byte) {
			related(msg)
			select {
			case <-detach:
			default:
				close(detach)
			}
		},
		Detach:  detach,
		Settled: func() { rec.sink("settled")(nil) },
	}
	ctx, cancel := context.WithCancel(context.Background())
	err := c.ServeBodySink(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"stream"}`), sink)
	if !errors.Is(err, conn.ErrDetached) {
		t.Fatalf("ServeBodySink returned %v, want ErrDetached", err)
	}
	cancel() // ends nothing once detached
	close(release)
	for _, want := range []string{
		`related {"jsonrpc":"2.0","method":"first"}`,
		`related {"jsonrpc":"2.0","method":"second"}`,
		`answer {"jsonrpc":"2.0","id":1,"result":"done"}`,
		`settled `,
	} {
		if got := rec.next(t); got != want {
			t.Fatalf("got %q, want %q", got, want)
		}
	}
	select {
	case m := <-streamed.out:
		t.Fatalf("the session's stream carried %s", m)
	default:
	}
}

// Settled follows the answer of a body served to the end, before
// ServeBodySink returns.
func TestServeBodySink_settledAfterTheAnswer(t *testing.T) {
	r := router.New()
	r.Register("echo", router.HandlerFunc(func(ctx context.Context, req *router.Request) (any, error) {
		return "ok", nil
	}), nil)
	c := conn.NewStream(nil, &conn.Options{Router: r})
	defer c.Close()
	var got []string
	err := c.ServeBodySink(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"echo"}`), conn.BodySink{
		Answer:  func(msg []byte) { got = append(got, string(msg)) },
		Settled: func() { got = append(got, "settled") },
		Detach:  make(chan struct{}),
	})
	if err != nil || len(got) != 2 || got[0] != `{"jsonrpc":"2.0","id":1,"result":"ok"}` || got[1] != "settled" {
		t.Fatalf("ServeBodySink: %v, sinks got %q", err, got)
	}
}
