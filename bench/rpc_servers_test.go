package bench

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/creachadair/jrpc2/handler"
	"github.com/creachadair/jrpc2/jhttp"
	gethrpc "github.com/ethereum/go-ethereum/rpc"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/pool"
	"github.com/mcpwire/mcpwire/router"
	"github.com/mcpwire/mcpwire/transport"
)

// The servers of BenchmarkRPCEcho: bench_echo(["msg"]) answers "msg", the
// parameter decoded into a Go string and the result encoded from one, on
// every server. Each is an http.Handler served by an httptest server (a
// plain http.Server) on loopback.

// mcpwireRPC returns mcpwire's handler for transport tr ("http", "ws",
// "fasthttp": an http.Handler for the first two)
// and how to stop it. pooled puts the handler on a pool.Pool; otherwise
// it is inline, as a cheap method is meant to be registered.
func mcpwireRPC(tb testing.TB, tr string, pooled bool) (any, func()) {
	r := router.New()
	err := r.Register(rpcMethod, router.Func(func(_ context.Context, p []string) (string, error) {
		if len(p) != 1 {
			return "", codec.ErrInvalidParams
		}
		return p[0], nil
	}), &router.MethodOptions{Inline: !pooled})
	if err != nil {
		tb.Fatal(err)
	}
	opts := &conn.Options{Router: r}
	stopPool := func() {}
	if pooled {
		p, err := pool.New(nil)
		if err != nil {
			tb.Fatal(err)
		}
		opts.Pool = p
		stopPool = func() { p.Close(context.Background()) }
	}
	switch tr {
	case "ws":
		h := transport.NewWebSocketHandler(opts, nil)
		return h, func() { h.Close(); stopPool() }
	case "fasthttp":
		h := transport.NewFastHTTPHandler(opts, nil)
		return h, func() { h.Shutdown(context.Background()); stopPool() }
	}
	h := transport.NewHTTPHandler(opts, nil)
	return h, func() { h.Shutdown(context.Background()); stopPool() } // lets the shared pool go
}

// mcpwireFastRPC serves mcpwire's HTTP endpoint on fasthttp
// (transport.NewFastHTTPServer) on a loopback listener, and returns its
// URL and how to stop it.
func mcpwireFastRPC(tb testing.TB, pooled bool) (string, func()) {
	h, stopHandler := mcpwireRPC(tb, "fasthttp", pooled)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		stopHandler()
		tb.Fatal(err)
	}
	srv := transport.NewFastHTTPServer(h.(*transport.FastHTTPHandler).ServeFastHTTP)
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	return "http://" + ln.Addr().String(), func() {
		_ = srv.Shutdown()
		<-done
		stopHandler()
	}
}

// gethEcho is go-ethereum's service: its method Echo is bench_echo.
type gethEcho struct{}

// Echo answers its argument.
func (gethEcho) Echo(s string) string { return s }

// gethRPC returns go-ethereum's rpc.Server as a handler for tr: the server
// itself for HTTP, its WebsocketHandler (gorilla/websocket) for ws.
func gethRPC(tb testing.TB, tr string) (http.Handler, func()) {
	srv := gethrpc.NewServer()
	if err := srv.RegisterName("bench", gethEcho{}); err != nil {
		tb.Fatal(err)
	}
	if tr == "ws" {
		return srv.WebsocketHandler([]string{"*"}), srv.Stop
	}
	return srv, srv.Stop
}

// jrpc2HTTP returns jrpc2's jhttp.Bridge (HTTP only).
func jrpc2HTTP(testing.TB) (http.Handler, func()) {
	b := jhttp.NewBridge(handler.Map{
		rpcMethod: handler.New(func(_ context.Context, p []string) (string, error) {
			if len(p) != 1 {
				return "", codec.ErrInvalidParams
			}
			return p[0], nil
		}),
	}, nil)
	return b, func() { b.Close() }
}

// rpcServer is one of BenchmarkRPCEcho's servers: start serves it on
// loopback and returns the URL its clients call (http:// or ws://) and
// how to stop it.
type rpcServer struct {
	name  string
	start func(testing.TB) (url string, stop func())
}

// onHTTPTest serves an http.Handler on an httptest server; scheme is
// "http" or "ws".
func onHTTPTest(scheme string, server func(testing.TB) (http.Handler, func())) func(testing.TB) (string, func()) {
	return func(tb testing.TB) (string, func()) {
		h, stopServer := server(tb)
		hs := httptest.NewServer(h)
		return scheme + strings.TrimPrefix(hs.URL, "http"), func() { stopServer(); hs.Close() }
	}
}

// rpcHandler is mcpwireRPC's http.Handler for tr ("http", "ws").
func rpcHandler(tr string, pooled bool) func(testing.TB) (http.Handler, func()) {
	return func(tb testing.TB) (http.Handler, func()) {
		h, stop := mcpwireRPC(tb, tr, pooled)
		return h.(http.Handler), stop
	}
}

// rpcServers are BenchmarkRPCEcho's servers, by transport.
var rpcServers = []struct {
	transport string
	servers   []rpcServer
}{
	{"http", []rpcServer{
		{"mcpwire", onHTTPTest("http", rpcHandler("http", false))},
		{"mcpwire-pooled", onHTTPTest("http", rpcHandler("http", true))},
		{"mcpwire-fasthttp", func(tb testing.TB) (string, func()) { return mcpwireFastRPC(tb, false) }},
		{"mcpwire-fasthttp-pooled", func(tb testing.TB) (string, func()) { return mcpwireFastRPC(tb, true) }},
		{"geth", onHTTPTest("http", func(tb testing.TB) (http.Handler, func()) { return gethRPC(tb, "http") })},
		{"jrpc2", onHTTPTest("http", jrpc2HTTP)},
	}},
	{"ws", []rpcServer{
		{"mcpwire", onHTTPTest("ws", rpcHandler("ws", false))},
		{"mcpwire-pooled", onHTTPTest("ws", rpcHandler("ws", true))},
		{"geth", onHTTPTest("ws", func(tb testing.TB) (http.Handler, func()) { return gethRPC(tb, "ws") })},
	}},
}

// rpcTransports are BenchmarkRPCEcho's tables: plain JSON-RPC over HTTP
// POST and over WebSocket, a server per entry, one plain client per
// transport.
var rpcTransports = func() []table {
	var tables []table
	for _, tr := range rpcServers {
		t := table{name: tr.transport}
		for _, srv := range tr.servers {
			t.impls = append(t.impls, impl{srv.name, plainImpl(tr.transport, srv.start)})
		}
		tables = append(tables, t)
	}
	return tables
}()

// plainImpl makes an impl of a server driven by tr's plain client.
func plainImpl(tr string, start func(testing.TB) (string, func())) func(testing.TB) (caller, func()) {
	return func(tb testing.TB) (caller, func()) {
		url, stopServer := start(tb)
		if tr == "http" {
			call, stopClient := plainPOST(url)
			return call, func() { stopClient(); stopServer() }
		}
		call, stopClient, err := plainWS(context.Background(), url)
		if err != nil {
			stopServer()
			tb.Fatal(err)
		}
		return call, func() { stopClient(); stopServer() }
	}
}

// BenchmarkRPCEcho calls bench_echo on each server over each transport,
// in each mode (see modes). One op is one call: ns/op, B/op and allocs/op
// are per call, client and server together; calls/s is the throughput.
// Every answer is checked against the message sent.
func BenchmarkRPCEcho(b *testing.B) { benchTables(b, rpcTransports) }
