package transport_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/router"
	"github.com/mcpwire/mcpwire/transport"
)

// A server like one that also holds event streams: a header timeout, an
// idle timeout, no server-wide ReadTimeout. The handler's own ReadTimeout
// must bound every read of a body.
func startNoReadTimeout(t *testing.T, h http.Handler) string {
	t.Helper()
	s := httptest.NewUnstartedServer(h)
	s.Config.ReadHeaderTimeout = 10 * time.Second
	s.Config.IdleTimeout = time.Minute
	s.Start()
	t.Cleanup(s.Close)
	return strings.TrimPrefix(s.URL, "http://")
}

// rawExchange sends req on a new connection to addr and returns the
// response read (nil if none came before the connection ended) and the
// connection, whose read deadline is set to 10s from now.
func rawExchange(t *testing.T, addr, req string) (*http.Response, string, net.Conn) {
	t.Helper()
	nc, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	nc.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(nc, req); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(nc)
	res, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("no response: %v", err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	// What follows on the connection must be its end.
	nc = &bufConn{Conn: nc, r: br}
	return res, string(body), nc
}

type bufConn struct {
	net.Conn
	r *bufio.Reader
}

func (c *bufConn) Read(p []byte) (int, error) { return c.r.Read(p) }

// closedWithin reports whether the server closes nc within d.
func closedWithin(t *testing.T, nc net.Conn, d time.Duration) {
	t.Helper()
	nc.SetReadDeadline(time.Now().Add(d))
	n, err := nc.Read(make([]byte, 1))
	var ne net.Error
	switch {
	case errors.As(err, &ne) && ne.Timeout():
		t.Fatalf("the connection is still open %v after the answer", d)
	case err == nil:
		t.Fatalf("read %d more bytes, want the connection closed", n)
	}
}

// TestHTTPHandler_stalledBodyIsCutAndTheConnectionClosed: a client sends
// a header and part of its body, then stalls, on a server without
// ReadTimeout. It is answered 400 within the handler's ReadTimeout with a
// message that says nothing of the error or the socket, and the
// connection is closed (it used to stay open forever: the deadline was
// cleared before net/http read the rest of the body).
func TestHTTPHandler_stalledBodyIsCutAndTheConnectionClosed(t *testing.T) {
	addr := startNoReadTimeout(t, transport.NewHTTPHandler(&conn.Options{Router: rpcRouter(nil)}, &transport.HTTPOptions{ReadTimeout: 300 * time.Millisecond}))
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
			res, body, nc := rawExchange(t, addr, tc.req)
			if res.StatusCode != tc.status {
				t.Fatalf("status %d, want %d: %s", res.StatusCode, tc.status, body)
			}
			if strings.Contains(body, "127.0.0.1") || strings.Contains(body, "timeout") || strings.Contains(body, "i/o") {
				t.Fatalf("the answer tells the error: %s", body)
			}
			closedWithin(t, nc, 5*time.Second)
			if took := time.Since(start); took > 5*time.Second {
				t.Fatalf("took %v", took)
			}
		})
	}
}

// TestHTTPHandler_badChunkClosesTheConnection: a malformed chunk size is
// answered 400 and nothing after it is read as a request.
func TestHTTPHandler_badChunkClosesTheConnection(t *testing.T) {
	addr := startNoReadTimeout(t, transport.NewHTTPHandler(&conn.Options{Router: rpcRouter(nil)}, &transport.HTTPOptions{ReadTimeout: 5 * time.Second}))
	req := "POST /rpc HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n" +
		"POST /rpc HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"
	res, body, nc := rawExchange(t, addr, req)
	if res.StatusCode != 400 || !strings.Contains(body, `"code":-32600`) || strings.Contains(body, "chunk") {
		t.Fatalf("%d %s", res.StatusCode, body)
	}
	closedWithin(t, nc, 5*time.Second)
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
		res, got, nc := rawExchange(t, addr, req)
		if res.StatusCode >= 500 {
			t.Fatalf("%d %s", res.StatusCode, got)
		}
		closedWithin(t, nc, 5*time.Second)
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
