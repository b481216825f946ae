package streamable_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/internal/rawhttp"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/mcp/streamable"
	"github.com/mcpwire/mcpwire/router"
	"github.com/mcpwire/mcpwire/transport"
)

// TestHTTP_singleErrorAnswerHasItsStatus: a POST answered as plain JSON
// with a single error response gets the status its code calls for, as
// JSON-RPC over HTTP POST does: -32011 → 429 with Retry-After (the hint
// rounded up to seconds), -32010 → 403, -32009 → 401 with
// WWW-Authenticate; the JSON-RPC error is the body. An event stream's
// status is sent before the answer is known: 200.
func TestHTTP_singleErrorAnswerHasItsStatus(t *testing.T) {
	onBothServers(t, func(t *testing.T, serveHTTP serveFunc) {
		srv := echoServer(t)
		srv.Use(func(next router.Handler) router.Handler {
			return router.HandlerFunc(func(ctx context.Context, req *router.Request) (any, error) {
				switch req.Method {
				case "x/limited":
					return nil, codec.NewError(codec.CodeTooManyRequests, "Too many requests").WithData(codec.Raw(`{"retryAfterMs":1500}`))
				case "x/forbidden":
					return nil, codec.NewError(codec.CodeForbidden, "Forbidden")
				case "x/unauthorized":
					return nil, codec.NewError(codec.CodeUnauthorized, "Unauthorized")
				}
				return next.Handle(ctx, req)
			})
		})
		for _, m := range []string{"x/limited", "x/forbidden", "x/unauthorized"} {
			if err := srv.AddMethod(m, router.HandlerFunc(func(context.Context, *router.Request) (any, error) { return "ran", nil }), nil); err != nil {
				t.Fatal(err)
			}
		}
		ts, _ := serveHTTP(t, srv, nil)
		p := newRawHTTP(t, ts.URL)
		p.initialize(mcp.LatestVersion)
		for _, tc := range []struct {
			method      string
			status      int
			code        codec.Code
			retry, auth string
		}{
			{"x/limited", http.StatusTooManyRequests, codec.CodeTooManyRequests, "2", ""},
			{"x/forbidden", http.StatusForbidden, codec.CodeForbidden, "", ""},
			{"x/unauthorized", http.StatusUnauthorized, codec.CodeUnauthorized, "", "Bearer"},
		} {
			resp := p.post(`{"jsonrpc":"2.0","id":7,"method":"`+tc.method+`"}`, "Accept", "application/json")
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			var msg struct {
				ID    json.RawMessage `json:"id"`
				Error *codec.Error    `json:"error"`
			}
			if err := json.Unmarshal(b, &msg); err != nil || msg.Error == nil || msg.Error.Code != tc.code || string(msg.ID) != "7" {
				t.Fatalf("%s: %d %s", tc.method, resp.StatusCode, b)
			}
			if resp.StatusCode != tc.status || resp.Header.Get("Retry-After") != tc.retry || resp.Header.Get("WWW-Authenticate") != tc.auth {
				t.Errorf("%s: %d Retry-After %q WWW-Authenticate %q, want %d %q %q", tc.method, resp.StatusCode,
					resp.Header.Get("Retry-After"), resp.Header.Get("WWW-Authenticate"), tc.status, tc.retry, tc.auth)
			}
		}
		// A batch, a result: 200.
		resp := p.post(`{"jsonrpc":"2.0","id":8,"method":"ping"}`, "Accept", "application/json")
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("ping: %d", resp.StatusCode)
		}
		// As an event stream: the status went out first.
		evs := readEvents(t, p.post(`{"jsonrpc":"2.0","id":9,"method":"x/limited"}`))
		if len(evs) == 0 || !strings.Contains(evs[len(evs)-1].data, `"code":-32011`) {
			t.Errorf("stream: %+v", evs)
		}
	})
}

// readsExchange sends req on a new connection and returns the answer's
// status and body; the connection must then be closed by the server within
// 5s.
func readsExchange(t *testing.T, addr, req string) (int, string) {
	t.Helper()
	c := rawhttp.Send(t, addr, req, 10*time.Second)
	defer c.Close()
	res, err := c.ReadResponse()
	if res == nil {
		t.Fatalf("no answer: %v", err)
	}
	switch c.WaitClose(5 * time.Second) {
	case rawhttp.ErrOpen:
		t.Fatalf("the connection is still open 5s after the answer %d %s", res.Status, res.Body)
	case rawhttp.ErrMore:
		t.Fatalf("more bytes after the answer %d %s", res.Status, res.Body)
	}
	return res.Status, res.Body
}

// TestHTTP_stalledBodyIsCut: on a server without ReadTimeout, a POST
// whose body stalls is cut within the handler's ReadTimeout, on /mcp and
// on the legacy /sse, whether the handler reads the body (400) or answers
// without reading it (404 for an unknown session); the connection is
// closed and the answer says nothing of the error nor the socket.
func TestHTTP_stalledBodyIsCut(t *testing.T) {
	opts := &streamable.Options{HTTPOptions: transport.HTTPOptions{ReadTimeout: 300 * time.Millisecond}}
	sh := streamable.NewHandler(echoServer(t), opts)
	legacy := streamable.NewSSEHandler(echoServer(t), opts)
	t.Cleanup(func() {
		sh.Close()
		legacy.Close()
	})
	mux := http.NewServeMux()
	mux.Handle("/mcp", sh)
	mux.Handle("/sse", legacy)
	addr := rawhttp.Serve(t, mux) // no ReadTimeout, as transport.NewHTTPServer's with EventStreams
	const head = "Host: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
	for _, tc := range []struct {
		name, req string
		status    int
	}{
		{"mcp", "POST /mcp HTTP/1.1\r\n" + head + "Content-Length: 100\r\n\r\n{\"jsonrpc\"", 400},
		{"mcp-chunked", "POST /mcp HTTP/1.1\r\n" + head + "Transfer-Encoding: chunked\r\n\r\n3\r\n{\"j\r\n", 400},
		{"sse-unknown-session", "POST /sse?sessionId=nope HTTP/1.1\r\n" + head + "Content-Length: 100\r\n\r\n{", 404},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, body := readsExchange(t, addr, tc.req)
			if status != tc.status {
				t.Fatalf("%d %s, want %d", status, body, tc.status)
			}
			for _, leak := range []string{"127.0.0.1", "timeout", "i/o", "chunk"} {
				if strings.Contains(body, leak) {
					t.Fatalf("the answer tells %q: %s", leak, body)
				}
			}
		})
	}
}

// TestNewHTTPServer_keepsHealthyConnections: the bound NewHTTPServer puts
// on every body (httpjson.BoundBodies) leaves a connection whose bodies
// come whole open for the next request, whether the handler reads them or
// not.
func TestNewHTTPServer_keepsHealthyConnections(t *testing.T) {
	hs := transport.NewHTTPServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusTeapot)
	}), &transport.HTTPServerOptions{EventStreams: true})
	if hs.ReadTimeout != 0 || hs.WriteTimeout != 0 {
		t.Fatalf("%+v", hs)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	t.Cleanup(func() {
		hs.Close()
		<-done
	})
	nc, err := net.DialTimeout("tcp", ln.Addr().String(), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(10 * time.Second))
	br := bufio.NewReader(nc)
	for range 2 {
		io.WriteString(nc, "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\n\r\n{}")
		res, err := http.ReadResponse(br, nil)
		if err != nil || res.StatusCode != http.StatusTeapot || res.Close {
			t.Fatalf("%v %v", res, err)
		}
		res.Body.Close()
	}
}

// TestHTTP_413ReachesAClientThatWritesItsWholeBodyFirst: on /mcp and on
// the legacy /sse, a client that writes a 20 MiB body, over a 1 MiB
// MaxBodyBytes, before it reads anything reads the whole 413 with its
// JSON-RPC error, then the connection's end (httpjson.Linger). Without
// the drain its write or read failed with a reset.
func TestHTTP_413ReachesAClientThatWritesItsWholeBodyFirst(t *testing.T) {
	opts := &streamable.Options{MaxBodyBytes: 1 << 20}
	sh := streamable.NewHandler(echoServer(t), opts)
	t.Cleanup(func() { sh.Close() })
	mux := http.NewServeMux()
	mux.Handle("/mcp", sh)
	addr := rawhttp.Serve(t, mux)
	body := strings.Repeat("x", 20<<20)
	head := "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
	for name, req := range map[string]string{
		"content-length": head + "Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body,
		"chunked":        head + "Transfer-Encoding: chunked\r\n\r\n" + strconv.FormatInt(int64(len(body)), 16) + "\r\n" + body + "\r\n0\r\n\r\n",
	} {
		t.Run(name, func(t *testing.T) {
			c := rawhttp.Send(t, addr, req, 10*time.Second)
			defer c.Close()
			res, err := c.ReadResponse()
			if err != nil || res.Status != http.StatusRequestEntityTooLarge ||
				!strings.HasPrefix(res.Body, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,`) || !strings.HasSuffix(res.Body, "}}") {
				t.Fatalf("%+v %v", res, err)
			}
			if c.WaitClose(5*time.Second) != nil {
				t.Fatal("the connection is not closed after the 413")
			}
		})
	}
}
