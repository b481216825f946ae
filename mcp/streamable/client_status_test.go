package streamable_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/mcp/streamable"
	"github.com/mcpwire/mcpwire/transport"
)

// wantStatusError fails the test unless err is a *transport.HTTPStatusError
// of this status and URL, and no JSON-RPC error.
func wantStatusError(t *testing.T, err error, code int, status, url string) {
	t.Helper()
	se, ok := errors.AsType[*transport.HTTPStatusError](err)
	if !ok || se.StatusCode != code || se.Status != status || se.URL != url {
		t.Fatalf("got %#v (%v), want a *transport.HTTPStatusError %s from %s", err, err, status, url)
	}
	if _, isRPC := errors.AsType[*codec.Error](err); isRPC {
		t.Fatalf("%v is also a JSON-RPC error", err)
	}
	if msg := err.Error(); !strings.Contains(msg, status) || !strings.Contains(msg, url) {
		t.Fatalf("Error() = %q, want the status and the URL", msg)
	}
}

// A client given a wrong URL learns the server answered 404 there, with
// or without the fallback on HTTP+SSE (which the 404 tries, and which
// fails the same way).
func TestConnect_wrongURLIsAnHTTPStatusError(t *testing.T) {
	h := streamable.NewHandler(echoServer(t), nil)
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	ts := httptest.NewServer(mux)
	t.Cleanup(func() { h.Close(); ts.Close() })
	for _, opts := range []*streamable.ClientOptions{nil, {DisableSSEFallback: true}} {
		_, err := streamable.Connect(context.Background(), mcp.NewClient(nil, nil), ts.URL+"/wrong", opts)
		wantStatusError(t, err, http.StatusNotFound, "404 Not Found", ts.URL+"/wrong")
	}
	_, err := streamable.ConnectSSE(context.Background(), mcp.NewClient(nil, nil), ts.URL+"/wrong", nil)
	wantStatusError(t, err, http.StatusNotFound, "404 Not Found", ts.URL+"/wrong")
}

// A call that a proxy answers 502 with an HTML page fails with that
// status, not -32603; the session goes on.
func TestClientHTTP_proxyErrorIsAnHTTPStatusError(t *testing.T) {
	h := streamable.NewHandler(echoServer(t), nil)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			body, _ := io.ReadAll(r.Body)
			if bytes.Contains(body, []byte(`"fail"`)) {
				w.Header().Set("Content-Type", "text/html")
				w.WriteHeader(http.StatusBadGateway)
				io.WriteString(w, "<h1>Bad Gateway</h1>")
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(func() { h.Close(); ts.Close() })
	cs, err := streamable.Connect(context.Background(), mcp.NewClient(nil, nil), ts.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	_, err = cs.CallTool(context.Background(), "echo", map[string]string{"message": "fail"})
	wantStatusError(t, err, http.StatusBadGateway, "502 Bad Gateway", ts.URL)
	res, err := cs.CallTool(context.Background(), "echo", map[string]string{"message": "still here"})
	if err != nil || res.Content[0].(*mcp.TextContent).Text != "still here" {
		t.Fatalf("after the 502: %+v, %v", res, err)
	}
}

// ClientOptions.MaxConcurrent bounds the requests posted at once: the
// others wait, and go out as those end. In a synctest bubble, over
// HTTP in memory (serveInMemory): once every goroutine is blocked, exactly the
// bound are running.
func TestClientHTTP_maxConcurrentBoundsTheRequestsPosted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const limit, calls = 2, 5
		var running atomic.Int32
		release := make(chan struct{})
		releaseAll := sync.OnceFunc(func() { close(release) })
		srv := bubbleServer(t, nil)
		must(t, srv.AddTool(&mcp.Tool{Name: "hold"}, func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			running.Add(1)
			defer running.Add(-1)
			<-release
			return &mcp.CallToolResult{}, nil
		}))
		h := streamable.NewHandler(srv, nil)
		url, client := serveInMemory(t, h)
		t.Cleanup(func() { h.Close() }) // before the server closes
		cs, err := streamable.Connect(context.Background(), mcp.NewClient(nil, nil), url,
			&streamable.ClientOptions{HTTPClientOptions: transport.HTTPClientOptions{Client: client, MaxConcurrent: limit}})
		must(t, err)
		defer cs.Close()
		defer releaseAll() // on failure too, before Close: the bubble ends once they do
		errs := make(chan error, calls)
		for range calls {
			go func() {
				_, err := cs.CallTool(context.Background(), "hold", nil)
				errs <- err
			}()
		}
		synctest.Wait()
		if n := running.Load(); n != limit {
			t.Fatalf("%d requests running at once, want the bound, %d", n, limit)
		}
		releaseAll()
		for range calls {
			must(t, <-errs)
		}
	})
}
