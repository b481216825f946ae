package transport_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/router"
	"github.com/mcpwire/mcpwire/transport"
)

// BenchmarkHTTPHandler_pooledEcho is BenchmarkHTTPHandler_echo with the
// handler off the reader, on the pool every session without one of its
// own shares: each POST is a session alone in the process, which makes
// that pool and closes it.
func BenchmarkHTTPHandler_pooledEcho(b *testing.B) {
	h, serve := pooledEchoHandler(b)
	b.ReportAllocs()
	for b.Loop() {
		serve(h)
	}
}

// pooledEchoHandler returns an HTTPHandler whose echo runs on the pool,
// and a func that POSTs it one echo request and checks the answer.
func pooledEchoHandler(tb testing.TB) (http.Handler, func(http.Handler)) {
	r := router.New()
	if err := r.Register("echo", router.HandlerFunc(func(_ context.Context, req *router.Request) (any, error) {
		return codec.Raw(req.Params), nil
	}), nil); err != nil {
		tb.Fatal(err)
	}
	h := shutdownAtEnd(tb, transport.NewHTTPHandler(&conn.Options{Router: r}, &transport.HTTPOptions{
		ReadTimeout: transport.DefaultHTTPReadTimeout, WriteTimeout: transport.DefaultHTTPWriteTimeout,
	}))
	return h, func(h http.Handler) { postEcho(tb, h) }
}
