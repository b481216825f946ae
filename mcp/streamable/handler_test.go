package streamable_test

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/mcp/streamable"
)

// serveHTTP serves srv over Streamable HTTP on a loopback address for the
// test's duration.
func serveHTTP(t testing.TB, srv *mcp.Server, opts *streamable.Options) (*httptest.Server, *streamable.Handler) {
	t.Helper()
	h := streamable.NewHandler(srv, opts)
	ts := httptest.NewServer(h)
	t.Cleanup(func() {
		h.Close()
		ts.Close()
	})
	return ts, h
}

// connectHTTP connects c to the server at url and closes the session at
// the end of the test.
func connectHTTP(t testing.TB, url string, c *mcp.Client) *mcp.ClientSession {
	t.Helper()
	cs, err := streamable.Connect(context.Background(), c, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func TestHTTP_smoke(t *testing.T) {
	onBothServers(t, func(t *testing.T, serveHTTP serveFunc) {
		ts, _ := serveHTTP(t, echoServer(t), nil)
		cs := connectHTTP(t, ts.URL, mcp.NewClient(nil, nil))
		res, err := cs.CallTool(context.Background(), "echo", map[string]string{"message": "over http"})
		if err != nil || res.Content[0].(*mcp.TextContent).Text != "over http" {
			t.Fatalf("%+v, %v", res, err)
		}
	})
}
