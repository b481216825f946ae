package streamable_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/mcp/streamable"
	"github.com/mcpwire/mcpwire/pool"
)

// handlerTransport serves each request with h on the calling goroutine,
// as from a loopback peer, with no socket: tests in a synctest bubble
// drive a handler whose timers then run on the bubble's clock. A response
// comes whole, once the handler has returned.
type handlerTransport struct{ h http.Handler }

var loopback = &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 80}

func (t handlerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(context.WithValue(req.Context(), http.LocalAddrContextKey, net.Addr(loopback)))
	req.RemoteAddr = "127.0.0.1:40000"
	if req.Body == nil {
		req.Body = http.NoBody
	}
	rec := httptest.NewRecorder()
	t.h.ServeHTTP(rec, req)
	return rec.Result(), nil
}

// bubbleServer returns an echo server with sopts whose sessions run their
// handlers on a pool of the test's own (a bubble's goroutines must not be
// served by workers started outside it), closed when the test ends.
func bubbleServer(t *testing.T, sopts *mcp.ServerOptions) *mcp.Server {
	t.Helper()
	p, err := pool.New(&pool.Options{Workers: 8})
	must(t, err)
	t.Cleanup(func() { must(t, p.Close(context.Background())) })
	so := mcp.ServerOptions{}
	if sopts != nil {
		so = *sopts
	}
	co := conn.Options{}
	if so.Conn != nil {
		co = *so.Conn
	}
	co.Pool = p
	so.Conn = &co
	srv := mcp.NewServer(&mcp.Implementation{Name: "echo", Version: "1"}, &so)
	must(t, addEcho(srv))
	return srv
}

// serveBubble returns a Streamable HTTP handler of srv and a raw client of
// it, over handlerTransport; the handler is closed when the test ends.
func serveBubble(t *testing.T, srv *mcp.Server, opts *streamable.Options) (*streamable.Handler, *rawHTTP) {
	t.Helper()
	h := streamable.NewHandler(srv, opts)
	t.Cleanup(func() { h.Close() })
	return h, &rawHTTP{t: t, url: "http://127.0.0.1/mcp", client: &http.Client{Transport: handlerTransport{h}}}
}

// bubbleHandler is serveBubble of bubbleServer(t, sopts).
func bubbleHandler(t *testing.T, sopts *mcp.ServerOptions, opts *streamable.Options) (*streamable.Handler, *rawHTTP) {
	t.Helper()
	return serveBubble(t, bubbleServer(t, sopts), opts)
}
