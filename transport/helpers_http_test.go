package transport_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/router"
	"github.com/mcpwire/mcpwire/transport"
)

// rpcRouter serves echo (inline: answers its params), fail (answers the
// error its params describe: {"code": C, "data": D}), header (answers the
// value of the request header its params name, read with
// HeaderFromContext), note (a notification handler: records its params)
// and block (pooled: waits until its context ends).
func rpcRouter(notes chan<- string) *router.Router {
	r := router.New()
	r.Register("echo", router.HandlerFunc(func(_ context.Context, req *router.Request) (any, error) {
		return codec.Raw(req.Params), nil
	}), &router.MethodOptions{Inline: true})
	r.Register("fail", router.Func(func(_ context.Context, p struct {
		Code int        `json:"code"`
		Data *codec.Raw `json:"data"`
	}) (any, error) {
		e := codec.NewError(codec.Code(p.Code), "")
		if p.Data != nil {
			e = e.WithData(*p.Data)
		}
		return nil, e
	}), nil)
	r.Register("header", router.Func(func(ctx context.Context, name []string) (string, error) {
		return transport.HeaderFromContext(ctx).Get(name[0]), nil
	}), nil)
	r.Register("note", router.HandlerFunc(func(_ context.Context, req *router.Request) (any, error) {
		if notes != nil {
			notes <- string(req.Params)
		}
		return nil, nil
	}), nil)
	r.Register("block", router.HandlerFunc(func(ctx context.Context, _ *router.Request) (any, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	}), nil)
	return r
}

// peers records the Peers a Binder was asked about and the Authorization
// header its context carried.
type peers struct {
	mu   sync.Mutex
	seen []conn.Peer
	auth []string
	opts *conn.Options
}

func (p *peers) Bind(ctx context.Context, peer *conn.Peer) (*conn.Options, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.seen = append(p.seen, *peer)
	p.auth = append(p.auth, transport.HeaderFromContext(ctx).Get("Authorization"))
	return p.opts, nil
}

func (p *peers) snapshot() ([]conn.Peer, []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]conn.Peer(nil), p.seen...), append([]string(nil), p.auth...)
}

// shutdownAtEnd shuts h down once the test and its other cleanups are
// done (it is registered first, so it runs last): an HTTP handler holds
// the shared pool until then (conn.Conn.HoldSharedPool).
func shutdownAtEnd[H interface{ Shutdown(context.Context) error }](tb testing.TB, h H) H {
	tb.Cleanup(func() {
		if err := h.Shutdown(context.Background()); err != nil {
			tb.Errorf("Shutdown: %v", err)
		}
	})
	return h
}

// rpcServer serves b at /rpc (HTTP POST) and /ws (WebSocket) on loopback.
type rpcServer struct {
	*httptest.Server
	ws *transport.WebSocketHandler
}

func startRPC(t *testing.T, b conn.Binder, hopts *transport.HTTPOptions, wopts *transport.WebSocketOptions) *rpcServer {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle("/rpc", shutdownAtEnd(t, transport.NewHTTPHandler(b, hopts)))
	ws := transport.NewWebSocketHandler(b, wopts)
	mux.Handle("/ws", ws)
	s := &rpcServer{Server: httptest.NewServer(mux), ws: ws}
	t.Cleanup(func() {
		ws.Close()
		s.Close()
	})
	return s
}

// serveRPC serves b's JSON-RPC over HTTP POST on loopback until the test
// ends and returns its URL.
type serveRPC func(t *testing.T, b conn.Binder) string

// serveNetHTTP serves b with HTTPHandler (at /rpc of startRPC's server).
func serveNetHTTP(t *testing.T, b conn.Binder) string { return startRPC(t, b, nil, nil).URL + "/rpc" }

// serveFastHTTP serves b with FastHTTPHandler on NewFastHTTPServer.
func serveFastHTTP(t *testing.T, b conn.Binder) string { return serveFastHTTPWith(t, b, nil) }

// serveFastHTTPWith is serveFastHTTP with the handler's options.
func serveFastHTTPWith(t *testing.T, b conn.Binder, opts *transport.HTTPOptions) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := transport.NewFastHTTPServer(shutdownAtEnd(t, transport.NewFastHTTPHandler(b, opts)).ServeFastHTTP)
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	t.Cleanup(func() {
		http.DefaultClient.CloseIdleConnections()
		if err := srv.Shutdown(); err != nil {
			t.Error(err)
		}
		<-done
	})
	return "http://" + ln.Addr().String() + "/rpc"
}

// forEachHTTPHandler runs test against HTTPHandler and FastHTTPHandler.
func forEachHTTPHandler(t *testing.T, test func(t *testing.T, serve serveRPC)) {
	t.Run("net/http", func(t *testing.T) { test(t, serveNetHTTP) })
	t.Run("fasthttp", func(t *testing.T) { test(t, serveFastHTTP) })
}

func (s *rpcServer) wsURL() string { return "ws" + strings.TrimPrefix(s.URL, "http") + "/ws" }

// post sends body to /rpc with a Content-Type and returns the response
// and its body.
func post(t *testing.T, url, contentType, body string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	return do(t, req)
}

func do(t *testing.T, req *http.Request) (*http.Response, string) {
	t.Helper()
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, string(b)
}
