package transport_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/pool"
	"github.com/mcpwire/mcpwire/router"
	"github.com/mcpwire/mcpwire/transport"
)

// The HTTP status table of HTTPHandler and FastHTTPHandler, one test per
// row, each run against both (forEachHTTPHandler).

func rpcURL(t *testing.T, serve serveRPC, opts *conn.Options) string {
	t.Helper()
	if opts == nil {
		opts = &conn.Options{Router: rpcRouter(nil)}
	}
	return serve(t, opts)
}

// wantStatus checks a response's status, Content-Type and JSON-RPC body.
func wantStatus(t *testing.T, res *http.Response, body string, status int, wantBody string) {
	t.Helper()
	if res.StatusCode != status {
		t.Fatalf("status %d, want %d (body %s)", res.StatusCode, status, body)
	}
	if wantBody == "" {
		if body != "" {
			t.Fatalf("body %q, want none", body)
		}
		return
	}
	if ct := res.Header.Get("Content-Type"); ct != "application/json" {
		t.Fatalf("Content-Type %q", ct)
	}
	if !strings.Contains(body, wantBody) {
		t.Fatalf("body %s, want it to contain %s", body, wantBody)
	}
}

func TestHTTPHandler_415WithoutJSONContentType(t *testing.T) {
	forEachHTTPHandler(t, func(t *testing.T, serve serveRPC) {
		url := rpcURL(t, serve, nil)
		for _, ct := range []string{"", "text/plain", "application/jsonx", "multipart/form-data"} {
			res, body := post(t, url, ct, `{"jsonrpc":"2.0","id":1,"method":"echo","params":[1]}`)
			wantStatus(t, res, body, http.StatusUnsupportedMediaType, `"code":-32600`)
		}
		// Parameters and case do not matter.
		res, body := post(t, url, "Application/JSON; charset=utf-8", `{"jsonrpc":"2.0","id":1,"method":"echo","params":[1]}`)
		wantStatus(t, res, body, http.StatusOK, `{"jsonrpc":"2.0","id":1,"result":[1]}`)
	})
}

func test405(t *testing.T, serve serveRPC, method string) {
	req, err := http.NewRequest(method, rpcURL(t, serve, nil), strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"echo"}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	res, body := do(t, req)
	wantStatus(t, res, body, http.StatusMethodNotAllowed, `"code":-32600`)
	if a := res.Header.Get("Allow"); a != "POST" {
		t.Fatalf("Allow %q", a)
	}
}

func TestHTTPHandler_405ForGET(t *testing.T) {
	forEachHTTPHandler(t, func(t *testing.T, serve serveRPC) { test405(t, serve, http.MethodGet) })
}

func TestHTTPHandler_405ForPUT(t *testing.T) {
	forEachHTTPHandler(t, func(t *testing.T, serve serveRPC) { test405(t, serve, http.MethodPut) })
}

func TestHTTPHandler_413OverTheFrameLimit(t *testing.T) {
	forEachHTTPHandler(t, func(t *testing.T, serve serveRPC) {
		url := rpcURL(t, serve, &conn.Options{Router: rpcRouter(nil), Limits: &codec.Limits{MaxFrameBytes: 100}})
		fits := `{"jsonrpc":"2.0","id":1,"method":"echo","params":["` + strings.Repeat("a", 100-54) + `"]}`
		if len(fits) != 100 {
			t.Fatalf("len %d", len(fits))
		}
		res, body := post(t, url, "application/json", fits)
		wantStatus(t, res, body, http.StatusOK, `"result":["aaa`)

		over := strings.Replace(fits, `"a`, `"aa`, 1)
		res, body = post(t, url, "application/json", over)
		wantStatus(t, res, body, http.StatusRequestEntityTooLarge, `"code":-32600`)
		// Without a Content-Length (chunked), the limit is met while reading.
		req, err := http.NewRequest(http.MethodPost, url, struct{ *strings.Reader }{strings.NewReader(over)})
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		res, body = do(t, req)
		if res.ContentLength == int64(len(over)) {
			t.Fatal("the request had a Content-Length")
		}
		wantStatus(t, res, body, http.StatusRequestEntityTooLarge, `"code":-32600`)
	})
}

func TestHTTPHandler_204ForNotificationsOnly(t *testing.T) {
	forEachHTTPHandler(t, func(t *testing.T, serve serveRPC) {
		notes := make(chan string, 4)
		url := rpcURL(t, serve, &conn.Options{Router: rpcRouter(notes)})
		res, body := post(t, url, "application/json", `{"jsonrpc":"2.0","method":"note","params":["one"]}`)
		wantStatus(t, res, body, http.StatusNoContent, "")
		res, body = post(t, url, "application/json", `[{"jsonrpc":"2.0","method":"note","params":["two"]},{"jsonrpc":"2.0","method":"note","params":["three"]}]`)
		wantStatus(t, res, body, http.StatusNoContent, "")
		// Answered once handled: the notes are in already.
		got := map[string]bool{}
		for range 3 {
			select {
			case n := <-notes:
				got[n] = true
			default:
				t.Fatalf("answered before the notifications were handled: %v", got)
			}
		}
		if !got[`["one"]`] || !got[`["two"]`] || !got[`["three"]`] {
			t.Fatalf("notes %v", got)
		}
	})
}

func TestHTTPHandler_200ForEveryOtherAnswer(t *testing.T) {
	forEachHTTPHandler(t, func(t *testing.T, serve serveRPC) {
		url := rpcURL(t, serve, nil)
		for _, tc := range []struct{ in, want string }{
			{`{"jsonrpc":"2.0","id":"x","method":"echo","params":{"a":1}}`, `{"jsonrpc":"2.0","id":"x","result":{"a":1}}`},
			{`{"jsonrpc":"2.0","id":2,"method":"nope"}`, `{"jsonrpc":"2.0","id":2,"error":{"code":-32601`},
			{`{"jsonrpc":"2.0","id":3,"method":"fail","params":{"code":-32602}}`, `"error":{"code":-32602`},
			{`{"jsonrpc":"2.0","method"`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700`},
			{`[]`, `"error":{"code":-32600`},
			// -32000 without a retry hint says nothing to HTTP.
			{`{"jsonrpc":"2.0","id":4,"method":"fail","params":{"code":-32000}}`, `"error":{"code":-32000`},
			// A batch is 200 whatever its elements say.
			{`[{"jsonrpc":"2.0","id":5,"method":"fail","params":{"code":-32009}},{"jsonrpc":"2.0","method":"note"}]`, `[{"jsonrpc":"2.0","id":5,"error":{"code":-32009`},
			// A result that merely mentions an error is a result.
			{`{"jsonrpc":"2.0","id":6,"method":"echo","params":{"error":{"code":-32009}}}`, `"result":{"error":{"code":-32009}}`},
		} {
			res, body := post(t, url, "application/json", tc.in)
			wantStatus(t, res, body, http.StatusOK, tc.want)
			if res.Header.Get("Www-Authenticate") != "" || res.Header.Get("Retry-After") != "" {
				t.Fatalf("%s: headers %v", tc.in, res.Header)
			}
		}
	})
}

// failWith asks the fail method for an error, over /rpc.
func failWith(t *testing.T, serve serveRPC, params string) (*http.Response, string) {
	t.Helper()
	return post(t, rpcURL(t, serve, nil), "application/json", `{"jsonrpc":"2.0","id":7,"method":"fail","params":`+params+`}`)
}

func TestHTTPHandler_401ForUnauthorized(t *testing.T) {
	forEachHTTPHandler(t, func(t *testing.T, serve serveRPC) {
		res, body := failWith(t, serve, `{"code":-32009}`)
		wantStatus(t, res, body, http.StatusUnauthorized, `{"jsonrpc":"2.0","id":7,"error":{"code":-32009`)
		if got := res.Header.Get("WWW-Authenticate"); got != "Bearer" {
			t.Fatalf("WWW-Authenticate %q", got)
		}
	})
}

func TestHTTPHandler_403ForForbidden(t *testing.T) {
	forEachHTTPHandler(t, func(t *testing.T, serve serveRPC) {
		res, body := failWith(t, serve, `{"code":-32010,"data":{"permission":"admin"}}`)
		wantStatus(t, res, body, http.StatusForbidden, `{"jsonrpc":"2.0","id":7,"error":{"code":-32010`)
	})
}

func TestHTTPHandler_429ForTooManyRequests(t *testing.T) {
	forEachHTTPHandler(t, func(t *testing.T, serve serveRPC) {
		for _, tc := range []struct{ data, retry string }{
			{`{"retryAfterMs":1500}`, "2"}, // rounded up
			{`{"retryAfterMs":3000}`, "3"},
			{`{"retryAfterMs":1}`, "1"},
			{`{"retryAfterMs":0}`, "0"},
			{`{"other":1}`, ""}, // no hint, no header
		} {
			res, body := failWith(t, serve, `{"code":-32011,"data":`+tc.data+`}`)
			wantStatus(t, res, body, http.StatusTooManyRequests, `"error":{"code":-32011`)
			if got := res.Header.Get("Retry-After"); got != tc.retry {
				t.Errorf("%s: Retry-After %q, want %q", tc.data, got, tc.retry)
			}
		}
	})
}

func TestHTTPHandler_503ForOverloadedWithRetryHint(t *testing.T) {
	forEachHTTPHandler(t, func(t *testing.T, serve serveRPC) {
		res, body := failWith(t, serve, `{"code":-32000,"data":{"retryAfterMs":250}}`)
		wantStatus(t, res, body, http.StatusServiceUnavailable, `"error":{"code":-32000`)
		if got := res.Header.Get("Retry-After"); got != "1" {
			t.Fatalf("Retry-After %q", got)
		}
		// The sessions' own overload answer is one of those: one request holds
		// the server-wide admission, the next is refused at once.
		started, release := make(chan struct{}), make(chan struct{})
		r := rpcRouter(nil)
		r.Register("hold", router.HandlerFunc(func(ctx context.Context, _ *router.Request) (any, error) {
			close(started)
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-release:
				return nil, nil
			}
		}), nil)
		url := rpcURL(t, serve, &conn.Options{Router: r, Admission: pool.NewLimiter(1), Overload: pool.Reject})
		ctx, cancel := context.WithCancel(context.Background())
		held := make(chan error, 1)
		go func() {
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"hold"}`))
			req.Header.Set("Content-Type", "application/json")
			_, err := http.DefaultClient.Do(req)
			held <- err
		}()
		<-started
		res, body = post(t, url, "application/json", `{"jsonrpc":"2.0","id":2,"method":"header","params":["x"]}`)
		close(release)
		cancel()
		<-held
		wantStatus(t, res, body, http.StatusServiceUnavailable, `{"jsonrpc":"2.0","id":2,"error":{"code":-32000`)
		if got := res.Header.Get("Retry-After"); got == "" {
			t.Fatal("no Retry-After")
		}
	})
}

func TestHTTPHandler_bindRefusalIsAnHTTPStatus(t *testing.T) {
	forEachHTTPHandler(t, func(t *testing.T, serve serveRPC) {
		for _, tc := range []struct {
			err    error
			status int
			code   string
		}{
			{errors.New("no"), http.StatusForbidden, `"code":-32010`},
			{codec.NewError(codec.CodeUnauthorized, "token please"), http.StatusUnauthorized, `"code":-32009,"message":"token please"`},
			{codec.NewError(codec.CodeTooManyRequests, "").WithData(codec.Raw(`{"retryAfterMs":2000}`)), http.StatusTooManyRequests, `"code":-32011`},
			{codec.NewError(codec.CodeInvalidParams, ""), http.StatusBadRequest, `"code":-32602`},
		} {
			b := conn.BinderFunc(func(context.Context, *conn.Peer) (*conn.Options, error) { return nil, tc.err })
			url := serve(t, b)
			res, body := post(t, url, "application/json", `{"jsonrpc":"2.0","id":1,"method":"echo"}`)
			wantStatus(t, res, body, tc.status, tc.code)
			if tc.status == http.StatusTooManyRequests && res.Header.Get("Retry-After") != "2" {
				t.Errorf("Retry-After %q", res.Header.Get("Retry-After"))
			}
		}
	})
}

func TestHTTPHandler_bindsEachPOSTWithItsPeerAndHeader(t *testing.T) {
	forEachHTTPHandler(t, func(t *testing.T, serve serveRPC) {
		p := &peers{opts: &conn.Options{Router: rpcRouter(nil)}}
		url := serve(t, p)
		for _, tok := range []string{"Bearer one", "Bearer two"} {
			req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"header","params":["Authorization"]}`))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Authorization", tok)
			res, body := do(t, req)
			wantStatus(t, res, body, http.StatusOK, `"result":"`+tok+`"`)
		}
		seen, auth := p.snapshot()
		if len(seen) != 2 || auth[0] != "Bearer one" || auth[1] != "Bearer two" {
			t.Fatalf("bound %v %v", seen, auth)
		}
		for _, s := range seen {
			if s.Transport != "http" || !strings.HasPrefix(s.Addr, "127.0.0.1:") {
				t.Fatalf("peer %+v", s)
			}
		}
	})
}

func TestHTTPHandler_clientGoneCancelsHandlers(t *testing.T) {
	url := rpcURL(t, serveNetHTTP, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader([]byte(`{"jsonrpc":"2.0","id":1,"method":"block"}`)))
	req.Header.Set("Content-Type", "application/json")
	if _, err := http.DefaultClient.Do(req); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("got %v", err)
	}
	// The handler returns once its session ends: goleak (TestMain) would
	// find it otherwise.
}

func TestNewHTTPServer_setsEveryTimeout(t *testing.T) {
	s := transport.NewHTTPServer(http.NotFoundHandler(), nil)
	if s.ReadHeaderTimeout <= 0 || s.ReadTimeout <= 0 || s.WriteTimeout <= 0 || s.IdleTimeout <= 0 || s.MaxHeaderBytes <= 0 {
		t.Fatalf("%+v", s)
	}
	if s.ReadHeaderTimeout > s.ReadTimeout || s.ReadTimeout > s.WriteTimeout {
		t.Fatalf("timeouts out of order: %v %v %v", s.ReadHeaderTimeout, s.ReadTimeout, s.WriteTimeout)
	}
	es := transport.NewHTTPServer(http.NotFoundHandler(), &transport.HTTPServerOptions{Addr: "127.0.0.1:0", EventStreams: true})
	if es.ReadTimeout != 0 || es.WriteTimeout != 0 || es.ReadHeaderTimeout <= 0 || es.IdleTimeout <= 0 || es.Addr != "127.0.0.1:0" {
		t.Fatalf("event streams: %+v", es)
	}
}
