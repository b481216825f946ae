package streamable_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/internal/pipenet"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/mcp/streamable"
	"github.com/mcpwire/mcpwire/pool"
)

// serveInMemory serves h on a pipenet listener and returns its URL and a
// client that dials it. In a synctest bubble, where real sockets cannot
// be, the server, its handler and the client then run in virtual time: a
// test that waits 200 ms waits exactly that, however loaded the machine.
// The server and the client's idle connections are closed when the test
// ends.
func serveInMemory(t *testing.T, h http.Handler) (string, *http.Client) {
	t.Helper()
	l := pipenet.Listen()
	hs := &http.Server{Handler: h}
	served := make(chan struct{})
	go func() {
		defer close(served)
		hs.Serve(l)
	}()
	tr := &http.Transport{DialContext: l.Dial}
	t.Cleanup(func() {
		tr.CloseIdleConnections()
		hs.Close()
		<-served
	})
	return "http://" + pipenet.Address.String() + "/", &http.Client{Transport: tr}
}

// rawHTTPInMemory serves srv over Streamable HTTP with serveInMemory and
// returns a rawHTTP peer of it.
func rawHTTPInMemory(t *testing.T, srv *mcp.Server, opts *streamable.Options) *rawHTTP {
	t.Helper()
	h := streamable.NewHandler(srv, opts)
	url, client := serveInMemory(t, h)
	t.Cleanup(func() { h.Close() }) // before the server closes
	p := newRawHTTP(t, url)
	p.client.Transport = client.Transport
	return p
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
