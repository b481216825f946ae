package conn_test

import (
	"context"
	"testing"

	"github.com/mcpwire/mcpwire/conn"
)

// loneBody is one pooled echo request, the body of one HTTP POST.
var loneBody = []byte(`{"jsonrpc":"2.0","id":1,"method":"echo","params":["x"]}`)

// serveLone serves one body on a session of its own, alone in the process,
// as each JSON-RPC POST without a session is: made, handed one request for
// the shared pool, and closed.
func serveLone(tb testing.TB, opts *conn.Options) {
	s := conn.NewStream(nil, opts)
	var n int
	if err := s.ServeBody(context.Background(), loneBody, func(msg []byte) { n += len(msg) }); err != nil || n == 0 {
		tb.Fatalf("ServeBody: %v, %d bytes answered", err, n)
	}
	s.Close()
	if err := s.Wait(); err != nil && err != conn.ErrClosed {
		tb.Fatalf("Wait: %v", err)
	}
}

// holdSharedPool serves one lone session, holds the shared pool it took
// (conn.Conn.HoldSharedPool) as a server does, and returns the release.
func holdSharedPool(tb testing.TB) (release func()) {
	s := conn.NewStream(nil, &conn.Options{Router: pooledEchoRouter()})
	defer s.Close()
	if err := s.ServeBody(context.Background(), loneBody, func([]byte) {}); err != nil {
		tb.Fatal(err)
	}
	release = s.HoldSharedPool()
	if release == nil {
		tb.Fatal("a session that handed a request off holds no shared pool")
	}
	return release
}

// BenchmarkServeBody_lone is a session per request, one after another, each
// handing its request to the shared pool, which nothing else holds: each
// session makes and closes it.
func BenchmarkServeBody_lone(b *testing.B) {
	opts := &conn.Options{Router: pooledEchoRouter()}
	b.ReportAllocs()
	for b.Loop() {
		serveLone(b, opts)
	}
}

// BenchmarkServeBody_loneHeld is BenchmarkServeBody_lone with the shared
// pool held open, as a server serving a session per request holds it.
func BenchmarkServeBody_loneHeld(b *testing.B) {
	defer holdSharedPool(b)()
	opts := &conn.Options{Router: pooledEchoRouter()}
	b.ReportAllocs()
	for b.Loop() {
		serveLone(b, opts)
	}
}

// serveInlineLone serves one body whose handler runs inline on a session
// of its own, then shuts the session down, as transport's HTTP handlers
// serve a POST.
func serveInlineLone(tb testing.TB, opts *conn.Options) {
	s := conn.NewStream(nil, opts)
	var n int
	if err := s.ServeBody(context.Background(), loneBody, func(msg []byte) { n += len(msg) }); err != nil || n == 0 {
		tb.Fatalf("ServeBody: %v, %d bytes answered", err, n)
	}
	if err := s.Shutdown(context.Background()); err != nil {
		tb.Fatalf("Shutdown: %v", err)
	}
}

// BenchmarkServeBody_loneInline is a session per request whose handler
// runs inline: what a session per HTTP POST costs beyond its handler.
func BenchmarkServeBody_loneInline(b *testing.B) {
	opts := &conn.Options{Router: echoRouter()}
	b.ReportAllocs()
	for b.Loop() {
		serveInlineLone(b, opts)
	}
}
