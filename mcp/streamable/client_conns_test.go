package streamable_test

import (
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/mcp/streamable"
)

// With the default options, callers in flight at once keep their
// connections between calls: the client's own http.Client keeps as many
// idle connections as it may post at once, not http.DefaultTransport's 2
// per host, which dialled and closed a connection for most calls.
func TestClientHTTP_concurrentCallsKeepTheirConnections(t *testing.T) {
	const callers, calls = 16, 20
	h := streamable.NewHandler(echoServer(t), nil)
	ts := httptest.NewUnstartedServer(h)
	var dials atomic.Int32
	ts.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			dials.Add(1)
		}
	}
	ts.Start()
	t.Cleanup(func() {
		h.Close()
		ts.Close()
	})
	cs := connectHTTP(t, ts.URL, mcp.NewClient(nil, nil))
	echoConcurrently(t, cs, callers, calls)
	// One connection per caller, the GET stream's, and initialize's
	// which a caller may or may not reuse.
	if n := dials.Load(); n > callers+2 {
		t.Fatalf("%d connections dialled for %d callers making %d calls each", n, callers, calls)
	}
}
