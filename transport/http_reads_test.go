package transport_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/internal/httpjson"
	"github.com/mcpwire/mcpwire/internal/rawhttp"
	"github.com/mcpwire/mcpwire/router"
	"github.com/mcpwire/mcpwire/transport"
)

// rawExchange sends req on a new connection to addr and returns the
// response read (failing t if none came before the connection ended) and
// the connection, whose deadline is 10s from now; the test closes it
// when it ends.
func rawExchange(t *testing.T, addr, req string) (*rawhttp.Response, *rawhttp.Conn) {
	t.Helper()
	c := rawhttp.Send(t, addr, req, 10*time.Second)
	t.Cleanup(func() { c.Close() })
	res, err := c.ReadResponse()
	if res == nil {
		t.Fatalf("no response: %v", err)
	}
	return res, c
}

// closedWithin fails t unless the server closes c within d.
func closedWithin(t *testing.T, c *rawhttp.Conn, d time.Duration) {
	t.Helper()
	switch c.WaitClose(d) {
	case rawhttp.ErrOpen:
		t.Fatalf("the connection is still open %v after the answer", d)
	case rawhttp.ErrMore:
		t.Fatal("read more bytes, want the connection closed")
	}
}

// TestHTTPHandler_stalledBodyIsCutAndTheConnectionClosed: a client sends
// a header and part of its body, then stalls, on a server without
// ReadTimeout. It is answered 400 within the handler's ReadTimeout with a
// message that says nothing of the error or the socket, and the
// connection is closed (it used to stay open forever: the deadline was
// cleared before net/http read the rest of the body).
func TestHTTPHandler_stalledBodyIsCutAndTheConnectionClosed(t *testing.T) {
	addr := rawhttp.Serve(t, shutdownAtEnd(t, transport.NewHTTPHandler(&conn.Options{Router: rpcRouter(nil)}, &transport.HTTPOptions{ReadTimeout: 300 * time.Millisecond})))
	for _, tc := range []struct {
		name, req string
		status    int
	}{
		{"content-length", "POST /rpc HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"jsonrpc\"", 400},
		{"chunked", "POST /rpc HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{\"jso\r\n", 400},
		// Answered without reading the body: net/http's own drain of it
		// must give up too.
		{"answered-unread", "POST /rpc HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/plain\r\nContent-Length: 100\r\n\r\n{", 415},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			res, c := rawExchange(t, addr, tc.req)
			if res.Status != tc.status {
				t.Fatalf("status %d, want %d: %s", res.Status, tc.status, res.Body)
			}
			if strings.Contains(res.Body, "127.0.0.1") || strings.Contains(res.Body, "timeout") || strings.Contains(res.Body, "i/o") {
				t.Fatalf("the answer tells the error: %s", res.Body)
			}
			closedWithin(t, c, 5*time.Second)
			if took := time.Since(start); took > 5*time.Second {
				t.Fatalf("took %v", took)
			}
		})
	}
}

// TestHTTPHandler_badChunkClosesTheConnection: a malformed chunk size is
// answered 400 and nothing after it is read as a request.
func TestHTTPHandler_badChunkClosesTheConnection(t *testing.T) {
	addr := rawhttp.Serve(t, shutdownAtEnd(t, transport.NewHTTPHandler(&conn.Options{Router: rpcRouter(nil)}, &transport.HTTPOptions{ReadTimeout: 5 * time.Second})))
	req := "POST /rpc HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n" +
		"POST /rpc HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"
	res, c := rawExchange(t, addr, req)
	if res.Status != 400 || !strings.Contains(res.Body, `"code":-32600`) || strings.Contains(res.Body, "chunk") {
		t.Fatalf("%d %s", res.Status, res.Body)
	}
	closedWithin(t, c, 5*time.Second)
}

// TestHTTPHandler_contentLengthWithTransferEncodingCloses: RFC 9112 §6.1:
// a request with both is answered, then the connection closed, on either
// server.
func TestHTTPHandler_contentLengthWithTransferEncodingCloses(t *testing.T) {
	forEachHTTPHandler(t, func(t *testing.T, serve serveRPC) {
		addr := strings.TrimSuffix(strings.TrimPrefix(serve(t, &conn.Options{Router: rpcRouter(nil)}), "http://"), "/rpc")
		body := `{"jsonrpc":"2.0","id":1,"method":"echo","params":[1]}`
		req := "POST /rpc HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n" +
			strconv.FormatInt(int64(len(body)), 16) + "\r\n" + body + "\r\n0\r\n\r\n"
		res, c := rawExchange(t, addr, req)
		if res.Status >= 500 {
			t.Fatalf("%d %s", res.Status, res.Body)
		}
		closedWithin(t, c, 5*time.Second)
	})
}

// holdRouter returns a router whose pooled method "hold" signals on started
// and waits until its context ends.
func holdRouter(started chan<- struct{}) *router.Router {
	r := router.New()
	r.Register("hold", router.HandlerFunc(func(ctx context.Context, _ *router.Request) (any, error) {
		started <- struct{}{}
		<-ctx.Done()
		return nil, ctx.Err()
	}), nil)
	return r
}

// TestHTTPHandler_shutdownAnswersWorkCutOff: a POST still running when
// Shutdown's grace is over is answered -32004, with its id, and status
// 503, before the server closes its connections; a POST after Shutdown
// began is refused 503.
func TestHTTPHandler_shutdownAnswersWorkCutOff(t *testing.T) {
	started := make(chan struct{}, 1)
	h := transport.NewHTTPHandler(&conn.Options{Router: holdRouter(started)}, nil)
	s := httptest.NewServer(h)
	defer s.Close()
	type result struct {
		status int
		body   string
		err    error
	}
	got := make(chan result, 1)
	go func() {
		res, err := http.Post(s.URL, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":"a7","method":"hold"}`))
		if err != nil {
			got <- result{err: err}
			return
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		got <- result{status: res.StatusCode, body: string(b)}
	}()
	select {
	case <-started:
	case <-time.After(10 * time.Second):
		t.Fatal("the handler never started")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if err := h.Shutdown(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Shutdown: %v, want the deadline's error", err)
	}
	s.CloseClientConnections() // what http.Server.Close does past the grace
	r := <-got
	if r.err != nil {
		t.Fatalf("the POST lost its answer: %v", r.err)
	}
	var msg struct {
		ID    json.RawMessage `json:"id"`
		Error *codec.Error    `json:"error"`
	}
	if err := json.Unmarshal([]byte(r.body), &msg); err != nil || msg.Error == nil {
		t.Fatalf("%d %s: %v", r.status, r.body, err)
	}
	if r.status != http.StatusServiceUnavailable || msg.Error.Code != codec.CodeAbandoned || string(msg.ID) != `"a7"` {
		t.Fatalf("%d %s", r.status, r.body)
	}

	http.DefaultClient.CloseIdleConnections() // the one cut off above
	res, body := post(t, s.URL, "application/json", `{"jsonrpc":"2.0","id":1,"method":"hold"}`)
	if res.StatusCode != http.StatusServiceUnavailable || !strings.Contains(body, `"code":-32000`) {
		t.Fatalf("after Shutdown: %d %s", res.StatusCode, body)
	}
}

// TestHTTPHandler_413ReachesAClientThatWritesItsWholeBodyFirst: a client
// that writes a 20 MiB body, over a 1 MiB limit, before it reads
// anything (as urllib and requests do) reads the whole 413 with its
// JSON-RPC error, then the connection's end: the server drains the body
// after its answer (httpjson.Linger). Without the drain the client's
// write or read failed with a reset.
func TestHTTPHandler_413ReachesAClientThatWritesItsWholeBodyFirst(t *testing.T) {
	addr := rawhttp.Serve(t, shutdownAtEnd(t, transport.NewHTTPHandler(&conn.Options{Router: rpcRouter(nil), Limits: &codec.Limits{MaxFrameBytes: 1 << 20}},
		&transport.HTTPOptions{ReadTimeout: 5 * time.Second})))
	wholeBodyGets413(t, addr)
}

// wholeBodyGets413 sends oversized POSTs to addr's /rpc, each written
// whole before anything is read, and checks that each reads the 413 and
// then the connection's end.
func wholeBodyGets413(t *testing.T, addr string) {
	for name, req := range oversized("/rpc", "") {
		t.Run(name, func(t *testing.T) {
			c := rawhttp.Send(t, addr, req, 10*time.Second)
			defer c.Close()
			res, err := c.ReadResponse()
			if err != nil || res.Status != http.StatusRequestEntityTooLarge ||
				res.Body != `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"`+httpjson.MsgTooLarge+`"}}` {
				t.Fatalf("%+v %v", res, err)
			}
			closedWithin(t, c, 5*time.Second)
		})
	}
}

// oversized returns POSTs to path with a 20 MiB body, with a
// Content-Length and chunked, with the extra header lines head.
func oversized(path, head string) map[string]string {
	body := strings.Repeat("x", 20<<20)
	start := "POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n" + head
	return map[string]string{
		"content-length": start + "Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body,
		"chunked":        start + "Transfer-Encoding: chunked\r\n\r\n" + strconv.FormatInt(int64(len(body)), 16) + "\r\n" + body + "\r\n0\r\n\r\n",
	}
}

// TestFastHTTPHandler_413ReachesAClientThatWritesItsWholeBodyFirst: the
// same client against FastHTTPHandler on NewFastHTTPServer, whose
// MaxRequestBodySize refuses the body before the handler sees it: the
// server drains the body before it answers and closes, as net/http's
// lingering close does. Without the drain the client's write or read
// failed with a reset.
func TestFastHTTPHandler_413ReachesAClientThatWritesItsWholeBodyFirst(t *testing.T) {
	url := serveFastHTTP(t, &conn.Options{Router: rpcRouter(nil)})
	wholeBodyGets413(t, strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/rpc"))
}
