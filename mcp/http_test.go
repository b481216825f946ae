package mcp_test

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/mcpwire/mcpwire/mcp"
)

// serveHTTP serves srv over Streamable HTTP on a loopback address for the
// test's duration.
func serveHTTP(t testing.TB, srv *mcp.Server, opts *mcp.HTTPOptions) (*httptest.Server, *mcp.StreamableHTTPHandler) {
	t.Helper()
	h := mcp.NewStreamableHTTPHandler(srv, opts)
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
	cs, err := c.ConnectHTTP(context.Background(), url, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func TestHTTP_smoke(t *testing.T) {
	ts, _ := serveHTTP(t, echoServer(t), nil)
	cs := connectHTTP(t, ts.URL, mcp.NewClient(nil, nil))
	res, err := cs.CallTool(context.Background(), "echo", map[string]string{"message": "over http"})
	if err != nil || res.Content[0].(*mcp.TextContent).Text != "over http" {
		t.Fatalf("%+v, %v", res, err)
	}
}

// connectOverHTTP serves srv over Streamable HTTP and connects c to it.
func connectOverHTTP(t testing.TB, srv *mcp.Server, c *mcp.Client) *mcp.ClientSession {
	t.Helper()
	ts, _ := serveHTTP(t, srv, fastRetry)
	return connectHTTP(t, ts.URL, c)
}
