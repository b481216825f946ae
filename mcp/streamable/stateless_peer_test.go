package streamable_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/mcp/streamable"
	"github.com/mcpwire/mcpwire/middleware"
)

// Stateless requests share one connection, but a per-peer rate limit
// still tells their clients apart by their address: the second call of
// 10.0.0.1 is refused, 10.0.0.2's first call is not.
func TestHTTPStateless_ratePerPeerAddress(t *testing.T) {
	srv := echoServer(t)
	srv.Use(middleware.RateLimit(rate.Every(time.Hour), 1, nil))
	h := streamable.NewHandler(srv, nil)
	t.Cleanup(func() { h.Close() })
	call := func(remote, id string) answer26 {
		t.Helper()
		req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", strings.NewReader(echo26(id, "hi")))
		req.Host = "127.0.0.1"
		req.RemoteAddr = remote
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		hd := headers26("tools/call", "echo")
		for i := 0; i < len(hd); i += 2 {
			req.Header.Set(hd[i], hd[i+1])
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		_, a := readAnswer(t, w.Result())
		return a
	}
	if a := call("10.0.0.1:1000", "1"); a.Error != nil {
		t.Fatalf("10.0.0.1's first call: %v", a.Error)
	}
	if a := call("10.0.0.1:1001", "2"); a.Error == nil || a.Error.Code != codec.CodeTooManyRequests {
		t.Fatalf("10.0.0.1's second call, from another port: %+v %s, want -32011", a.Error, a.Result)
	}
	if a := call("10.0.0.2:1000", "3"); a.Error != nil {
		t.Fatalf("10.0.0.2's first call: %v (its budget is not 10.0.0.1's)", a.Error)
	}
}
