package conn_test

import (
	"context"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/router"
)

// BodyCancel cancels the requests of its own body only: two bodies
// carry requests with the same id (two HTTP clients), and cancelling one
// body's leaves the other's running. Under CancelSilent the cancelled
// body is settled with no answer; the other is answered.
func TestBodyCancel_cancelsOnlyItsBody(t *testing.T) {
	r := router.New()
	started := make(chan struct{}, 2)
	release := make(chan struct{})
	r.Register("wait", router.HandlerFunc(func(ctx context.Context, req *router.Request) (any, error) {
		started <- struct{}{}
		select {
		case <-ctx.Done():
			return "cancelled", nil
		case <-release:
			return "released", nil
		}
	}), nil)
	c := conn.NewStream(nil, &conn.Options{Router: r, Cancel: conn.CancelSilent})
	defer c.Close()

	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"wait"}`)
	var bc conn.BodyCancel
	if n := bc.Cancel(); n != 0 {
		t.Fatalf("an unbound BodyCancel cancelled %d requests", n)
	}
	type outcome struct {
		err    error
		answer string
	}
	serve := func(cancel *conn.BodyCancel) chan outcome {
		out := make(chan outcome, 1)
		go func() {
			var o outcome
			o.err = c.ServeBodySink(context.Background(), body, conn.BodySink{
				Answer: func(msg []byte) { o.answer = string(msg) }, Cancel: cancel})
			out <- o
		}()
		return out
	}
	first, second := serve(&bc), serve(nil)
	for range 2 {
		select {
		case <-started:
		case <-time.After(10 * time.Second):
			t.Fatal("the handlers did not start")
		}
	}
	if n := bc.Cancel(); n != 1 {
		t.Fatalf("Cancel cancelled %d requests, want 1", n)
	}
	select {
	case o := <-first:
		if o.err != nil || o.answer != "" {
			t.Fatalf("the cancelled body: err %v, answer %q; want settled with no answer", o.err, o.answer)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the cancelled body was not settled")
	}
	close(release)
	if o := <-second; o.err != nil || o.answer != `{"jsonrpc":"2.0","id":1,"result":"released"}` {
		t.Fatalf("the other body: err %v, answer %q", o.err, o.answer)
	}
	if n := bc.Cancel(); n != 0 {
		t.Fatalf("Cancel after the body was settled cancelled %d", n)
	}
}
