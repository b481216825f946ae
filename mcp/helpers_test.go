package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"testing"
	"testing/synctest"
	"time"

	"go.uber.org/goleak"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/router"
	"github.com/mcpwire/mcpwire/transport"
)

// ants (under pool) starts goroutines when loaded: ignore what runs before
// the tests. Run with stdioServerEnv set, the test binary is an MCP server
// on its stdin and stdout instead (for the client's command transport).
func TestMain(m *testing.M) {
	if os.Getenv(stdioServerEnv) == "1" {
		srv := mcp.NewServer(&mcp.Implementation{Name: "stdio-echo", Version: "1"}, nil)
		addEcho(srv)
		if err := srv.Run(context.Background(), transport.NewStdio()); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	goleak.VerifyTestMain(m, goleak.IgnoreCurrent())
}

const stdioServerEnv = "MCPWIRE_TEST_STDIO_SERVER"

// note is a notification the test client received.
type note struct {
	method string
	params json.RawMessage
}

// client is a small MCP client for the tests: a conn.Conn on one end of a
// pipe, the server's session on the other. Notifications it receives go to
// notes, in order; requests of the server go to the handlers set in
// serve.
type client struct {
	t     *testing.T
	c     *conn.Conn
	ss    *mcp.ServerSession
	r     *router.Router
	notes chan note
}

func newClient(t *testing.T, srv *mcp.Server) *client {
	t.Helper()
	a, b := conn.Pipe()
	ss, err := srv.Connect(context.Background(), conn.NewMessageStream(a, nil))
	if err != nil {
		t.Fatal(err)
	}
	cl := &client{t: t, ss: ss, r: router.New(), notes: make(chan note, 256)}
	for _, m := range []string{
		"notifications/message", "notifications/progress", "notifications/cancelled",
		"notifications/tools/list_changed", "notifications/resources/list_changed",
		"notifications/prompts/list_changed", "notifications/resources/updated",
		"notifications/tasks/status",
	} {
		cl.r.Register(m, router.HandlerFunc(func(_ context.Context, req *router.Request) (any, error) {
			cl.notes <- note{req.Method, json.RawMessage(append([]byte(nil), req.Params...))}
			return nil, nil
		}), &router.MethodOptions{Inline: true})
	}
	cl.c = conn.NewStream(conn.NewMessageStream(b, nil), &conn.Options{Router: cl.r, ExposeErrors: true})
	t.Cleanup(func() {
		cl.c.Close()
		ss.Close()
		ss.Wait()
	})
	return cl
}

// serve answers the server's requests for method with h.
func (cl *client) serve(method string, h func(ctx context.Context, params json.RawMessage) (any, error)) {
	cl.r.Register(method, router.HandlerFunc(func(ctx context.Context, req *router.Request) (any, error) {
		return h(ctx, json.RawMessage(req.Params))
	}), nil)
}

// call sends a request and returns its raw result.
func (cl *client) call(method string, params any) (json.RawMessage, error) {
	cl.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	raw, err := cl.c.CallRaw(ctx, method, params)
	return json.RawMessage(raw), err
}

// mustCall sends a request that must succeed and decodes its result.
func (cl *client) mustCall(method string, params, result any) {
	cl.t.Helper()
	raw, err := cl.call(method, params)
	if err != nil {
		cl.t.Fatalf("%s: %v", method, err)
	}
	if result != nil {
		if err := codec.Unmarshal(raw, result); err != nil {
			cl.t.Fatalf("%s: decoding %s: %v", method, raw, err)
		}
	}
}

// callErr sends a request that must fail and returns its error object.
func (cl *client) callErr(method string, params any) *codec.Error {
	cl.t.Helper()
	raw, err := cl.call(method, params)
	var e *codec.Error
	if !errors.As(err, &e) {
		cl.t.Fatalf("%s: got %s, %v; want an error response", method, raw, err)
	}
	return e
}

func (cl *client) notify(method string, params any) {
	cl.t.Helper()
	if err := cl.c.Notify(context.Background(), method, params); err != nil {
		cl.t.Fatal(err)
	}
}

// caps are the client capabilities the tests declare: everything.
var caps = map[string]any{"sampling": map[string]any{}, "elicitation": map[string]any{}, "roots": map[string]any{"listChanged": true}}

// initialize runs the handshake with the given version and returns the
// result.
func (cl *client) initialize(version string) *mcp.InitializeResult {
	cl.t.Helper()
	var res mcp.InitializeResult
	cl.mustCall("initialize", map[string]any{
		"protocolVersion": version,
		"capabilities":    caps,
		"clientInfo":      map[string]any{"name": "test-client", "version": "1.0"},
	}, &res)
	cl.notify("notifications/initialized", nil)
	return &res
}

// next waits for the next notification.
func (cl *client) next() note {
	cl.t.Helper()
	select {
	case n := <-cl.notes:
		return n
	case <-time.After(10 * time.Second):
		cl.t.Fatal("no notification came")
		return note{}
	}
}

// none checks that no notification is on its way. It must run in a
// synctest bubble: it waits until every goroutine of the bubble is
// blocked, so whatever the server was going to send has been received.
func (cl *client) none() {
	cl.t.Helper()
	synctest.Wait()
	select {
	case n := <-cl.notes:
		cl.t.Fatalf("unexpected notification %s %s", n.method, n.params)
	default:
	}
}

// rawPeer speaks raw JSON to a session, message by message.
type rawPeer struct {
	t  *testing.T
	mc conn.MessageConn
	ss *mcp.ServerSession
}

func newRawPeer(t *testing.T, srv *mcp.Server) *rawPeer {
	t.Helper()
	a, b := conn.Pipe()
	ss, err := srv.Connect(context.Background(), conn.NewMessageStream(a, nil))
	if err != nil {
		t.Fatal(err)
	}
	p := &rawPeer{t: t, mc: b, ss: ss}
	t.Cleanup(func() {
		b.Close()
		ss.Close()
		ss.Wait()
	})
	return p
}

func (p *rawPeer) send(msg string) {
	p.t.Helper()
	if err := p.mc.WriteMessage([]byte(msg)); err != nil {
		p.t.Fatal(err)
	}
}

func (p *rawPeer) recv() string {
	p.t.Helper()
	type res struct {
		b   []byte
		err error
	}
	ch := make(chan res, 1)
	go func() {
		b, err := p.mc.ReadMessage()
		ch <- res{append([]byte(nil), b...), err}
	}()
	select {
	case r := <-ch:
		if r.err != nil {
			p.t.Fatal(r.err)
		}
		return string(r.b)
	case <-time.After(10 * time.Second):
		p.mc.Close()
		<-ch
		p.t.Fatal("no answer came")
		return ""
	}
}

// roundTrip sends msg and returns the next message received.
func (p *rawPeer) roundTrip(msg string) string {
	p.t.Helper()
	p.send(msg)
	return p.recv()
}

const initMsg = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`
