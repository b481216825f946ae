package sessiontest_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/mcp/streamable"
	"github.com/mcpwire/mcpwire/router"
	"github.com/mcpwire/mcpwire/transport"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m, goleak.IgnoreCurrent()) }

// hold is the method (a tool, over MCP) every server serves: it tells
// started, then answers "finished" once release is closed, or fails when
// its context ends (as Close ends it).
type hold struct {
	started chan struct{} // one send per call
	release chan struct{}
	once    sync.Once
}

func newHold() *hold {
	return &hold{started: make(chan struct{}, 4), release: make(chan struct{})}
}

func (h *hold) run(ctx context.Context) (string, error) {
	h.started <- struct{}{}
	select {
	case <-h.release:
		return "finished", nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

func (h *hold) free() { h.once.Do(func() { close(h.release) }) }

// server is one of the five, on a loopback listener of its own.
type server struct {
	sessions func() int                          // sessions counted
	open     func(context.Context) (call, error) // a new session, initialised where the protocol asks it
	shutdown func(context.Context) error
	close    func() error
}

// call calls hold on a session and returns its answer.
type call func(context.Context) (string, error)

// jsonrpcServer serves hold as a JSON-RPC method.
func jsonrpcRouter(h *hold) *router.Router {
	r := router.New()
	r.Register("hold", router.HandlerFunc(func(ctx context.Context, _ *router.Request) (any, error) { return h.run(ctx) }), nil)
	return r
}

// mcpServer serves hold as a tool.
func mcpServer(t *testing.T, h *hold) *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "lifecycle", Version: "1"}, nil)
	err := srv.AddTool(&mcp.Tool{Name: "hold"}, func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		s, err := h.run(ctx)
		if err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

// conns closes the client sessions a test opened.
type conns struct {
	mu  sync.Mutex
	all []interface{ Close() error }
}

func (c *conns) add(x interface{ Close() error }) {
	c.mu.Lock()
	c.all = append(c.all, x)
	c.mu.Unlock()
}

func (c *conns) closeAll() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, x := range c.all {
		x.Close()
	}
}

// jsonrpcOpen returns the call of a JSON-RPC client session.
func jsonrpcOpen(c *conn.Conn, cl *conns) call {
	cl.add(c)
	return func(ctx context.Context) (string, error) {
		var s string
		err := c.Call(ctx, "hold", nil, &s)
		return s, err
	}
}

func mcpCall(cs *mcp.ClientSession) call {
	return func(ctx context.Context) (string, error) {
		res, err := cs.CallTool(ctx, "hold", nil)
		if err != nil {
			return "", err
		}
		if len(res.Content) != 1 {
			return "", errors.New("not one content block")
		}
		tc, _ := res.Content[0].(*mcp.TextContent)
		if tc == nil {
			return "", errors.New("not text")
		}
		return tc.Text, nil
	}
}

// servePipe serves one end of an in-memory pipe with srv and returns the
// other: ServeConn returns once srv counts the session (Serve's accept
// loop counts it just after the session starts reading). The server is
// closed when the test ends.
func servePipe(t *testing.T, srv *transport.Server) func() (net.Conn, error) {
	t.Cleanup(func() { srv.Close() })
	return func() (net.Conn, error) {
		client, server := net.Pipe()
		if _, err := srv.ServeConn(server); err != nil {
			client.Close()
			return nil, err
		}
		return client, nil
	}
}

var servers = []struct {
	name  string
	start func(t *testing.T, h *hold, cl *conns) server
}{
	{"transport.Server", func(t *testing.T, h *hold, cl *conns) server {
		srv := transport.NewServer(&conn.Options{Router: jsonrpcRouter(h)})
		dial := servePipe(t, srv)
		return server{srv.Len, func(context.Context) (call, error) {
			nc, err := dial()
			if err != nil {
				return nil, err
			}
			return jsonrpcOpen(conn.New(nc, nil), cl), nil
		}, srv.Shutdown, srv.Close}
	}},
	{"transport.WebSocketHandler", func(t *testing.T, h *hold, cl *conns) server {
		ws := transport.NewWebSocketHandler(&conn.Options{Router: jsonrpcRouter(h)}, nil)
		served := make(chan struct{}, 8) // ServeHTTP returned: an upgraded session is counted
		hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			ws.ServeHTTP(w, r)
			served <- struct{}{}
		}))
		t.Cleanup(func() {
			ws.Close()
			hs.Close()
		})
		url := "ws" + strings.TrimPrefix(hs.URL, "http")
		return server{ws.Len, func(ctx context.Context) (call, error) {
			st, err := transport.DialWebSocket(ctx, url, nil)
			if err != nil {
				return nil, err
			}
			<-served
			return jsonrpcOpen(conn.NewStream(st, nil), cl), nil
		}, ws.Shutdown, ws.Close}
	}},
	{"mcp.Server", func(t *testing.T, h *hold, cl *conns) server {
		srv := transport.NewServer(mcpServer(t, h))
		dial := servePipe(t, srv)
		// Counted by the transport.Server that serves them: mcp.Server
		// forgets a session in its OnClose, which runs once the
		// transport's registry has removed it (transport/sessions.go), so
		// its own count may lag Close's return.
		return server{srv.Len, func(ctx context.Context) (call, error) {
			nc, err := dial()
			if err != nil {
				return nil, err
			}
			cs, err := mcp.NewClient(nil, stateful).ConnectIO(ctx, nc)
			if err != nil {
				return nil, err
			}
			cl.add(cs)
			return mcpCall(cs), nil
		}, srv.Shutdown, srv.Close}
	}},
	{"streamable.Handler", func(t *testing.T, h *hold, cl *conns) server {
		ms := mcpServer(t, h)
		return serveMCPHTTP(t, streamable.NewHandler(ms, nil), streamable.Connect, cl)
	}},
	{"streamable.SSEHandler", func(t *testing.T, h *hold, cl *conns) server {
		ms := mcpServer(t, h)
		return serveMCPHTTP(t, streamable.NewSSEHandler(ms, nil), streamable.ConnectSSE, cl)
	}},
}

// stateful are the options of the MCP clients here: the lifecycle of
// sessions is of the versions with initialize (2026-07-28 has none).
var stateful = &mcp.ClientOptions{ProtocolVersion: mcp.LatestVersion}

// serveMCPHTTP serves sh, one of mcp/streamable's handlers, on a
// loopback HTTP server until the test ends; connect is its client.
func serveMCPHTTP(t *testing.T, sh interface {
	http.Handler
	Len() int
	Shutdown(context.Context) error
	Close() error
}, connect func(context.Context, *mcp.Client, string, *streamable.ClientOptions) (*mcp.ClientSession, error), cl *conns,
) server {
	hs := httptest.NewServer(sh)
	t.Cleanup(func() {
		sh.Close()
		hs.Close()
	})
	return server{sh.Len, func(ctx context.Context) (call, error) {
		cs, err := connect(ctx, mcp.NewClient(nil, stateful), hs.URL, nil)
		if err != nil {
			return nil, err
		}
		cl.add(cs)
		return mcpCall(cs), nil
	}, sh.Shutdown, sh.Close}
}

// doneWatch is a context whose Done reports its first call: a server's
// Shutdown has refused new sessions by the time it asks (each calls
// session.Registry.Shutdown, which stops the registry first).
type doneWatch struct {
	context.Context
	once   sync.Once
	called chan struct{}
}

func (c *doneWatch) Done() <-chan struct{} {
	c.once.Do(func() { close(c.called) })
	return c.Context.Done()
}

// run is one server started, with sessions open on it.
type run struct {
	ctx   context.Context
	h     *hold
	cl    *conns
	srv   server
	calls []call // one per session
}

// begin starts a server and opens n sessions on it, which it must count.
// The sessions, their held calls and the server end with the test.
func begin(t *testing.T, start func(*testing.T, *hold, *conns) server, n int) *run {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	r := &run{ctx: ctx, h: newHold(), cl: new(conns), calls: make([]call, n)}
	t.Cleanup(cancel)
	t.Cleanup(r.cl.closeAll)
	t.Cleanup(r.h.free)
	r.srv = start(t, r.h, r.cl)
	for i := range r.calls {
		c, err := r.srv.open(ctx)
		if err != nil {
			t.Fatal(err)
		}
		r.calls[i] = c
	}
	if got := r.srv.sessions(); got != n {
		t.Fatalf("%d sessions counted, want %d", got, n)
	}
	return r
}

// The lifecycle of item 5, the same for every server: sessions are
// counted; Shutdown refuses new sessions at once, answers the call in
// flight, then ends the session; Close ends sessions at once, their calls
// still running.
func TestLifecycle(t *testing.T) {
	for _, tc := range servers {
		t.Run(tc.name+"/shutdown", func(t *testing.T) {
			r := begin(t, tc.start, 1)
			ctx, h, srv := r.ctx, r.h, r.srv
			answer := make(chan string, 1)
			go func() {
				s, err := r.calls[0](ctx)
				if err != nil {
					s = "error: " + err.Error()
				}
				answer <- s
			}()
			<-h.started

			watch := &doneWatch{Context: ctx, called: make(chan struct{})}
			done := make(chan error, 1)
			go func() { done <- srv.shutdown(watch) }()
			<-watch.called
			if _, err := srv.open(ctx); err == nil {
				t.Fatal("a new session during Shutdown was served")
			}
			select {
			case err := <-done:
				t.Fatalf("Shutdown returned (%v) with a call in flight", err)
			default:
			}
			h.free()
			if s := <-answer; s != "finished" {
				t.Fatalf("the call in flight: %s", s)
			}
			if err := <-done; err != nil {
				t.Fatalf("Shutdown: %v", err)
			}
			if n := srv.sessions(); n != 0 {
				t.Fatalf("%d sessions after Shutdown", n)
			}
			if _, err := srv.open(ctx); err == nil {
				t.Fatal("a new session after Shutdown was served")
			}
		})
		t.Run(tc.name+"/close", func(t *testing.T) {
			r := begin(t, tc.start, 2)
			ctx, h, srv := r.ctx, r.h, r.srv
			answer := make(chan string, 1)
			go func() {
				s, _ := r.calls[0](ctx)
				answer <- s
			}()
			<-h.started
			if err := srv.close(); err != nil { // returns with the call still held: its context ends
				t.Fatalf("Close: %v", err)
			}
			if n := srv.sessions(); n != 0 {
				t.Fatalf("%d sessions after Close", n)
			}
			if _, err := srv.open(ctx); err == nil {
				t.Fatal("a new session after Close was served")
			}
			h.free()
			r.cl.closeAll() // ends the call if its client still waits
			if s := <-answer; s == "finished" {
				t.Fatal("the call held during Close was answered")
			}
		})
	}
}
