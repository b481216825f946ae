package mcp_test

import (
	"context"
	"net"
	"net/http"
	"sync"
	"testing"

	"github.com/mcpwire/mcpwire/mcp"
)

// memListener is a net.Listener whose connections are in-memory pipes
// (net.Pipe), so that an HTTP server and its clients can run in a
// synctest bubble, where real sockets cannot: time there is virtual, and
// a test that waits 200 ms waits exactly that, however loaded the
// machine. It is safe for concurrent use.
type memListener struct {
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

func newMemListener() *memListener {
	return &memListener{conns: make(chan net.Conn), done: make(chan struct{})}
}

// Accept returns the server's end of the next dialled pipe.
func (l *memListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

// Close makes Accept and dial fail with net.ErrClosed.
func (l *memListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

// Addr is a placeholder: the listener has no network address.
func (l *memListener) Addr() net.Addr { return memAddr{} }

// dial is an http.Transport's DialContext: it hands one end of a new pipe
// to Accept and returns the other.
func (l *memListener) dial(ctx context.Context, _, _ string) (net.Conn, error) {
	client, server := net.Pipe()
	select {
	case l.conns <- server:
		return client, nil
	case <-l.done:
	case <-ctx.Done():
	}
	client.Close()
	server.Close()
	return nil, net.ErrClosed
}

type memAddr struct{}

func (memAddr) Network() string { return "mem" }
func (memAddr) String() string  { return "mem" }

// serveInMemory serves h on a memListener and returns its URL and a
// client that dials it. Run it in a synctest bubble; the server and the
// client's idle connections are closed when the test ends.
func serveInMemory(t *testing.T, h http.Handler) (string, *http.Client) {
	t.Helper()
	l := newMemListener()
	hs := &http.Server{Handler: h}
	served := make(chan struct{})
	go func() {
		defer close(served)
		hs.Serve(l)
	}()
	tr := &http.Transport{DialContext: l.dial}
	t.Cleanup(func() {
		tr.CloseIdleConnections()
		hs.Close()
		<-served
	})
	return "http://" + memAddr{}.String() + "/", &http.Client{Transport: tr}
}

// rawHTTPInMemory serves srv over Streamable HTTP with serveInMemory and
// returns a rawHTTP peer of it. Run it in a synctest bubble.
func rawHTTPInMemory(t *testing.T, srv *mcp.Server, opts *mcp.HTTPOptions) *rawHTTP {
	t.Helper()
	h := mcp.NewStreamableHTTPHandler(srv, opts)
	url, client := serveInMemory(t, h)
	t.Cleanup(func() { h.Close() }) // before the server closes
	p := newRawHTTP(t, url)
	p.client.Transport = client.Transport
	return p
}
