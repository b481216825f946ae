package transport_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/transport"
)

// httpSession opens a client session over NewHTTPStream.
func httpSession(t *testing.T, url string, opts *transport.HTTPClientOptions) *conn.Conn {
	t.Helper()
	c := conn.NewStream(transport.NewHTTPStream(url, opts), nil)
	t.Cleanup(func() { c.Close() })
	return c
}

func TestHTTPStream_roundTripAgainstTheHandler(t *testing.T) {
	notes := make(chan string, 1)
	s := startRPC(t, &conn.Options{Router: rpcRouter(notes)}, nil, nil)
	c := httpSession(t, s.URL+"/rpc", &transport.HTTPClientOptions{Header: http.Header{"authorization": {"Bearer post"}}})
	ctx := context.Background()

	var got []int
	if err := c.Call(ctx, "echo", []int{4, 2}, &got); err != nil || got[0] != 4 {
		t.Fatalf("echo: %v %v", got, err)
	}
	var auth string
	if err := c.Call(ctx, "header", []string{"Authorization"}, &auth); err != nil || auth != "Bearer post" {
		t.Fatalf("header: %q %v", auth, err)
	}
	// An answer with an error status is still the request's answer.
	err := c.Call(ctx, "fail", map[string]any{"code": -32011, "data": map[string]int{"retryAfterMs": 10}}, nil)
	var e *codec.Error
	if !errors.As(err, &e) || e.Code != codec.CodeTooManyRequests || !strings.Contains(string(e.Data.(codec.Raw)), `"retryAfterMs":10`) {
		t.Fatalf("fail: %v", err)
	}
	if err := c.Notify(ctx, "note", []string{"posted"}); err != nil {
		t.Fatal(err)
	}
	if n := <-notes; n != `["posted"]` {
		t.Fatalf("note %s", n)
	}
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Go(func() {
			for i := range 10 {
				want := strconv.Itoa(g) + "/" + strconv.Itoa(i)
				var out []string
				if err := c.Call(ctx, "echo", []string{want}, &out); err != nil || out[0] != want {
					t.Errorf("got %v %v, want %s", out, err, want)
					return
				}
			}
		})
	}
	wg.Wait()
}

// TestHTTPStream_messagesAndBatches drives the stream as a session does:
// each message or batch written is one POST, the answer what Next returns.
func TestHTTPStream_messagesAndBatches(t *testing.T) {
	s := startRPC(t, &conn.Options{Router: rpcRouter(nil)}, nil, nil)
	st := transport.NewHTTPStream(s.URL+"/rpc", nil)
	defer st.Close()
	var frames []byte
	frames = st.AppendFrame(frames, []byte(`[{"jsonrpc":"2.0","method":"note"}]`)) // 204: nothing to read
	frames = st.AppendFrame(frames, []byte(`[{"jsonrpc":"2.0","id":1,"method":"echo","params":[1]},{"jsonrpc":"2.0","id":2,"method":"echo","params":[2]}]`))
	if err := st.Write(frames); err != nil {
		t.Fatal(err)
	}
	msg, err := st.Next()
	if err != nil || string(msg) != `[{"jsonrpc":"2.0","id":1,"result":[1]},{"jsonrpc":"2.0","id":2,"result":[2]}]` {
		t.Fatalf("got %s %v", msg, err)
	}
	time.Sleep(50 * time.Millisecond)
	if st.Buffered() {
		t.Fatal("the notification's POST gave something to read")
	}
}

func TestHTTPStream_errorStatusesWithoutAnAnswer(t *testing.T) {
	var status int
	var header http.Header
	var body string
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for k, v := range header {
			w.Header()[k] = v
		}
		w.WriteHeader(status)
		w.Write([]byte(body))
	}))
	defer hs.Close()
	c := httpSession(t, hs.URL, nil)
	for _, tc := range []struct {
		status int
		header http.Header
		body   string
		code   codec.Code
		data   string
	}{
		{429, http.Header{"Retry-After": {"3"}}, "", codec.CodeTooManyRequests, `{"httpStatus":429,"retryAfterMs":3000}`},
		{503, nil, "", codec.CodeOverloaded, `{"httpStatus":503}`},
		{401, nil, "", codec.CodeUnauthorized, `{"httpStatus":401}`},
		{403, nil, "nope", codec.CodeForbidden, `{"httpStatus":403}`},
		// An error without id is given to the request.
		{413, http.Header{"Content-Type": {"application/json"}}, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"too large"}}`, codec.CodeInvalidRequest, ""},
		// 200 that is not JSON.
		{200, http.Header{"Content-Type": {"text/plain"}}, "hello", codec.CodeInternalError, `{"httpStatus":200}`},
	} {
		status, header, body = tc.status, tc.header, tc.body
		err := c.Call(context.Background(), "echo", []int{1}, nil)
		var e *codec.Error
		if !errors.As(err, &e) || e.Code != tc.code {
			t.Fatalf("%d: got %v, want code %d", tc.status, err, tc.code)
		}
		if tc.data != "" && string(e.Data.(codec.Raw)) != tc.data {
			t.Fatalf("%d: data %s, want %s", tc.status, e.Data, tc.data)
		}
	}
}

// A status that carries no JSON-RPC answer and stands for no JSON-RPC
// code (a 404 from a wrong URL, a proxy's 502) fails the call with a
// *transport.HTTPStatusError naming the status and the URL (without its
// credentials), not the body; the session goes on.
func TestHTTPStream_wrongURLIsAnHTTPStatusError(t *testing.T) {
	mux := http.NewServeMux()
	mux.Handle("/rpc", shutdownAtEnd(t, transport.NewHTTPHandler(&conn.Options{Router: rpcRouter(nil)}, nil)))
	mux.HandleFunc("/proxy", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusBadGateway)
		w.Write([]byte("<h1>Bad Gateway: secret</h1>"))
	})
	hs := httptest.NewServer(mux)
	defer hs.Close()
	for _, tc := range []struct {
		path, status string
		code         int
	}{
		{"/wrong?token=secret", "404 Not Found", http.StatusNotFound},
		{"/proxy", "502 Bad Gateway", http.StatusBadGateway},
	} {
		c := httpSession(t, hs.URL+tc.path, nil)
		for range 2 { // the session goes on after it
			err := c.Call(context.Background(), "echo", []int{1}, nil)
			se, ok := errors.AsType[*transport.HTTPStatusError](err)
			wantURL := hs.URL + strings.TrimSuffix(tc.path, "?token=secret")
			if !ok || se.StatusCode != tc.code || se.Status != tc.status || se.URL != wantURL {
				t.Fatalf("%s: got %#v (%v), want a *transport.HTTPStatusError %d %s", tc.path, err, err, tc.code, wantURL)
			}
			if msg := err.Error(); !strings.Contains(msg, tc.status) || !strings.Contains(msg, wantURL) || strings.Contains(msg, "secret") {
				t.Fatalf("%s: Error() = %q", tc.path, msg)
			}
			if _, isRPC := errors.AsType[*codec.Error](err); isRPC {
				t.Fatalf("%s: %v is also a JSON-RPC error", tc.path, err)
			}
		}
	}
}

func TestHTTPStream_answerOverTheLimitIsMinus32003(t *testing.T) {
	s := startRPC(t, &conn.Options{Router: rpcRouter(nil)}, nil, nil)
	c := httpSession(t, s.URL+"/rpc", &transport.HTTPClientOptions{Limits: &codec.Limits{MaxFrameBytes: 100}})
	err := c.Call(context.Background(), "echo", []string{strings.Repeat("z", 200)}, nil)
	if !errors.Is(err, &codec.Error{Code: codec.CodeResponseTooLarge}) {
		t.Fatalf("got %v", err)
	}
	var out []int
	if err := c.Call(context.Background(), "echo", []int{1}, &out); err != nil || out[0] != 1 {
		t.Fatalf("after: %v %v", out, err)
	}
}

func TestHTTPStream_noServerEndsTheStream(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String()
	ln.Close() // nobody listens there now
	c := httpSession(t, url, nil)
	err = c.Call(context.Background(), "echo", []int{1}, nil)
	if !errors.Is(err, conn.ErrClosed) {
		t.Fatalf("got %v", err)
	}
	select {
	case <-c.Done():
	case <-time.After(2 * time.Second):
		t.Fatal("the session did not end")
	}
	if err := c.Wait(); err == nil || !strings.Contains(err.Error(), "refused") {
		t.Fatalf("Wait: %v", err)
	}
}

func TestHTTPStream_closeCancelsPOSTsInFlight(t *testing.T) {
	s := startRPC(t, &conn.Options{Router: rpcRouter(nil)}, nil, nil)
	st := transport.NewHTTPStream(s.URL+"/rpc", nil)
	c := conn.NewStream(st, nil)
	res := make(chan error, 1)
	go func() { res <- c.Call(context.Background(), "block", nil, nil) }()
	time.Sleep(50 * time.Millisecond)
	c.Close()
	select {
	case err := <-res:
		if !errors.Is(err, conn.ErrClosed) {
			t.Fatalf("got %v", err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("the call outlived Close")
	}
}
