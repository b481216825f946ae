package streamable_test

import (
	"context"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/mcp/streamable"
	"github.com/mcpwire/mcpwire/transport"
)

// served is a Handler served on a loopback address.
type served struct {
	URL   string
	Close func()
}

// serveFunc serves srv over Streamable HTTP on a loopback address for the
// test's duration.
type serveFunc func(t testing.TB, srv *mcp.Server, opts *streamable.Options) (*served, *streamable.Handler)

// httpServers are the servers a Handler is served on: net/http
// (ServeHTTP) and fasthttp (ServeFastHTTP).
var httpServers = []struct {
	name  string
	serve serveFunc
}{
	{"net", serveNet},
	{"fast", serveFast},
}

// onBothServers runs test once on each server: the HTTP contract is the
// same on both.
func onBothServers(t *testing.T, test func(t *testing.T, serveHTTP serveFunc)) {
	for _, s := range httpServers {
		t.Run("server="+s.name, func(t *testing.T) { test(t, s.serve) })
	}
}

func serveNet(t testing.TB, srv *mcp.Server, opts *streamable.Options) (*served, *streamable.Handler) {
	t.Helper()
	ts, h := serveHTTP(t, srv, opts)
	return &served{URL: ts.URL, Close: ts.Close}, h
}

// serveFast serves on fasthttp, with transport.NewFastHTTPServer's
// bounds.
func serveFast(t testing.TB, srv *mcp.Server, opts *streamable.Options) (*served, *streamable.Handler) {
	t.Helper()
	h := streamable.NewHandler(srv, opts)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	fs := transport.NewFastHTTPServer(h.ServeFastHTTP)
	done := make(chan struct{})
	go func() {
		defer close(done)
		fs.Serve(l)
	}()
	stop := sync.OnceFunc(func() {
		h.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := fs.ShutdownWithContext(ctx); err != nil {
			t.Errorf("fasthttp shutdown: %v", err)
		}
		<-done
	})
	t.Cleanup(stop)
	return &served{URL: "http://" + l.Addr().String(), Close: stop}, h
}
