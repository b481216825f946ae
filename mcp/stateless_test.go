package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/router"
)

// modernMeta is the _meta of a 2026-07-28 request: the version, the
// client's identity and capabilities, and what extra is given.
func modernMeta(caps string, extra ...string) string {
	return `{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
		`"io.modelcontextprotocol/clientInfo":{"name":"modern","version":"2"},` +
		`"io.modelcontextprotocol/clientCapabilities":` + caps + strings.Join(append([]string{""}, extra...), ",") + `}`
}

// statelessServer has one feature of each kind, and tools that report
// what their handler sees of the client, that need sampling, and that log.
func statelessServer(t *testing.T) *mcp.Server {
	t.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "srv", Version: "1.0"}, &mcp.ServerOptions{
		Instructions: "be kind",
		CompletionHandler: func(_ context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
			return &mcp.CompleteResult{Completion: mcp.CompletionValues{Values: []string{"x"}}}, nil
		},
	})
	must(t, srv.AddTool(&mcp.Tool{Name: "whoami"}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		ss := req.Session
		name := "-"
		if ci := ss.ClientInfo(); ci != nil && ci.Name != "" {
			name = ci.Name
		}
		cc := ss.ClientCapabilities()
		return textResult(fmt.Sprintf("%s %s sampling=%t", ss.ProtocolVersion(), name, cc != nil && cc.Sampling != nil)), nil
	}))
	must(t, srv.AddTool(&mcp.Tool{Name: "sample"}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if _, err := req.Session.CreateMessage(ctx, &mcp.CreateMessageParams{MaxTokens: 1,
			Messages: []*mcp.SamplingMessage{{Role: mcp.RoleUser, Content: []mcp.Content{&mcp.TextContent{Text: "hi"}}}}}); err != nil {
			return nil, err
		}
		return textResult("sampled"), nil
	}))
	must(t, srv.AddTool(&mcp.Tool{Name: "elicit_url"}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		_, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Mode: mcp.ElicitModeURL, Message: "go", URL: "https://example.com/x", ElicitationID: "e1"})
		return nil, err
	}))
	must(t, srv.AddTool(&mcp.Tool{Name: "roots"}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		_, err := req.Session.ListRoots(ctx)
		return nil, err
	}))
	must(t, srv.AddTool(&mcp.Tool{Name: "log"}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		must(t, req.Log(ctx, mcp.LevelInfo, "l", "hello"))
		return textResult("logged"), nil
	}))
	must(t, srv.AddResource(&mcp.Resource{URI: "file:///a", Name: "a"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{Text: "A"}}}, nil
	}))
	must(t, srv.AddPrompt(&mcp.Prompt{Name: "p"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: mcp.RoleUser, Content: &mcp.TextContent{Text: "P"}}}}, nil
	}))
	must(t, srv.AddMethod("my/method", router.HandlerFunc(func(ctx context.Context, _ *router.Request) (any, error) {
		return map[string]string{"version": mcp.SessionFromContext(ctx).ProtocolVersion()}, nil
	}), nil))
	return srv
}

func textResult(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

// statelessPeer is a JSON-RPC peer of a server's session that sends raw
// params and receives raw results, and the log messages sent to it.
type statelessPeer struct {
	t    *testing.T
	c    *conn.Conn
	logs chan string
}

// newStatelessPeer connects to srv over transport (connectPeer).
func newStatelessPeer(t *testing.T, srv *mcp.Server, transport string) *statelessPeer {
	t.Helper()
	p := &statelessPeer{t: t, logs: make(chan string, 16)}
	r := router.New()
	must(t, r.Register("notifications/message", router.HandlerFunc(func(_ context.Context, req *router.Request) (any, error) {
		p.logs <- string(req.Params)
		return nil, nil
	}), &router.MethodOptions{Inline: true}))
	p.c, _ = connectPeer(t, srv, transport, r)
	return p
}

// connectPeer connects a session serving r to srv over transport:
// "stdio" (Server.Run on a byte stream, newline-delimited) or
// "inprocess" (conn.InProcess). end ends the server's session
// gracefully (Run's context cancelled, or Shutdown); both ends close when
// the test does.
func connectPeer(t *testing.T, srv *mcp.Server, transport string, r *router.Router) (c *conn.Conn, end func()) {
	t.Helper()
	o := &conn.Options{Router: r}
	switch transport {
	case "stdio":
		a, b := net.Pipe()
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- srv.Run(ctx, a) }() // ends gracefully once ctx is
		c = conn.New(b, o)
		t.Cleanup(func() {
			cancel()
			c.Close()
			if err := <-done; err != nil && !errors.Is(err, net.ErrClosed) {
				t.Logf("Run: %v", err)
			}
		})
		return c, cancel
	case "inprocess":
		a, b := conn.InProcess()
		ss, err := srv.Connect(context.Background(), a)
		must(t, err)
		c = conn.NewStream(b, o)
		t.Cleanup(func() {
			c.Close()
			ss.Close()
			ss.Wait()
		})
		return c, func() { _ = ss.Shutdown(context.Background()) }
	}
	t.Fatalf("transport %q", transport)
	return nil, nil
}

// call sends method with params (raw JSON, "" for none) and returns the
// result in canonical form, or the error object as JSON.
func (p *statelessPeer) call(method, params string) string {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var ps any
	if params != "" {
		ps = codec.Raw(params)
	}
	raw, err := p.c.CallRaw(ctx, method, ps)
	var e *codec.Error
	switch {
	case errors.As(err, &e):
		b, err := codec.AppendValue(nil, map[string]any{"code": e.Code, "message": e.Message, "data": e.Data})
		must(p.t, err)
		raw = b
	case err != nil:
		p.t.Fatalf("%s: %v", method, err)
	}
	out, err := codec.AppendCanonical(nil, raw)
	must(p.t, err)
	return string(out)
}

// canon returns s in canonical form.
func canon(t *testing.T, s string) string {
	t.Helper()
	out, err := codec.AppendCanonical(nil, []byte(s))
	if err != nil {
		t.Fatalf("%s: %v", s, err)
	}
	return string(out)
}

const serverInfoMeta = `"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"srv","version":"1.0"}}`

// TestStateless_requests checks each kind of 2026-07-28 request, and the
// errors of bad ones, over stdio and in process: every result carries
// resultType and the server's identity, the cacheable ones ttlMs and
// cacheScope; a handler sees the version, the client and its
// capabilities of the request's _meta.
func TestStateless_requests(t *testing.T) {
	meta := modernMeta(`{}`)
	notFound := func(m string) string {
		return `{"code":-32601,"message":"Method not found: ` + m + ` is not part of protocol version 2026-07-28","data":{"method":"` + m + `"}}`
	}
	cases := []struct{ name, method, params, want string }{
		{"discover", "server/discover", `{"_meta":` + meta + `}`,
			`{"resultType":"complete","ttlMs":0,"cacheScope":"private",` + serverInfoMeta + `,` +
				`"supportedVersions":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"],` +
				`"capabilities":{"logging":{},"completions":{},"prompts":{"listChanged":true},"resources":{"listChanged":true,"subscribe":true},"tools":{"listChanged":true}},"instructions":"be kind"}`},
		{"discover without clientInfo", "server/discover",
			`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}`,
			`{"resultType":"complete","ttlMs":0,"cacheScope":"private",` + serverInfoMeta + `,` +
				`"supportedVersions":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"],` +
				`"capabilities":{"logging":{},"completions":{},"prompts":{"listChanged":true},"resources":{"listChanged":true,"subscribe":true},"tools":{"listChanged":true}},"instructions":"be kind"}`},
		{"discover without _meta", "server/discover", `{}`,
			`{"code":-32602,"message":"Invalid params: _meta must carry io.modelcontextprotocol/protocolVersion (a protocol version without initialize, such as 2026-07-28)","data":null}`},
		{"discover without params", "server/discover", ``,
			`{"code":-32602,"message":"Invalid params: _meta must carry io.modelcontextprotocol/protocolVersion (a protocol version without initialize, such as 2026-07-28)","data":null}`},
		{"no protocolVersion", "server/discover",
			`{"_meta":{"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}`,
			`{"code":-32602,"message":"Invalid params: _meta must carry io.modelcontextprotocol/protocolVersion (a protocol version without initialize, such as 2026-07-28)","data":null}`},
		{"no clientCapabilities", "tools/list",
			`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"}}}`,
			`{"code":-32602,"message":"Invalid params: _meta must carry io.modelcontextprotocol/clientCapabilities under protocol version 2026-07-28 ({} declares none)","data":null}`},
		{"clientCapabilities not an object", "tools/list",
			`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":[]}}`,
			`{"code":-32602,"message":"Invalid params: io.modelcontextprotocol/clientCapabilities must be a ClientCapabilities object","data":null}`},
		{"_meta not an object", "tools/list", `{"_meta":"io.modelcontextprotocol/protocolVersion"}`,
			`{"code":-32602,"message":"Invalid params: _meta must be an object","data":null}`},
		{"bad logLevel", "tools/list", `{"_meta":` + modernMeta(`{}`, `"io.modelcontextprotocol/logLevel":"loud"`) + `}`,
			`{"code":-32602,"message":"Invalid params: io.modelcontextprotocol/logLevel must be a logging level","data":{"level":"\"loud\""}}`},
		{"unknown version", "server/discover",
			`{"_meta":{"io.modelcontextprotocol/protocolVersion":"v999.0.0","io.modelcontextprotocol/clientCapabilities":{}}}`,
			`{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"],"requested":"v999.0.0"}}`},
		{"unknown version, any method", "tools/call",
			`{"name":"whoami","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-01-01","io.modelcontextprotocol/clientCapabilities":{}}}`,
			`{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"],"requested":"2026-01-01"}}`},
		{"initialize", "initialize", `{"_meta":` + meta + `}`, notFound("initialize")},
		{"ping", "ping", `{"_meta":` + meta + `}`, notFound("ping")},
		{"logging/setLevel", "logging/setLevel", `{"level":"debug","_meta":` + meta + `}`, notFound("logging/setLevel")},
		{"resources/subscribe", "resources/subscribe", `{"uri":"file:///a","_meta":` + meta + `}`, notFound("resources/subscribe")},
		{"resources/unsubscribe", "resources/unsubscribe", `{"uri":"file:///a","_meta":` + meta + `}`, notFound("resources/unsubscribe")},
		{"tasks/list", "tasks/list", `{"_meta":` + meta + `}`, notFound("tasks/list")},
		{"unknown method", "unknown/method", `{"_meta":` + meta + `}`, `{"code":-32601,"message":"Method not found","data":{"method":"unknown/method"}}`},
		{"tools/list", "tools/list", `{"_meta":` + meta + `}`,
			`{"resultType":"complete","ttlMs":0,"cacheScope":"private",` + serverInfoMeta + `,"tools":[` +
				`{"name":"elicit_url","inputSchema":{"type":"object"}},{"name":"log","inputSchema":{"type":"object"}},` +
				`{"name":"roots","inputSchema":{"type":"object"}},{"name":"sample","inputSchema":{"type":"object"}},` +
				`{"name":"whoami","inputSchema":{"type":"object"}}]}`},
		{"tools/call sees the request's client", "tools/call", `{"name":"whoami","_meta":` + modernMeta(`{"sampling":{}}`) + `}`,
			`{"resultType":"complete",` + serverInfoMeta + `,"content":[{"type":"text","text":"2026-07-28 modern sampling=true"}]}`},
		{"tools/call, no clientInfo", "tools/call",
			`{"name":"whoami","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}`,
			`{"resultType":"complete",` + serverInfoMeta + `,"content":[{"type":"text","text":"2026-07-28 - sampling=false"}]}`},
		{"tools/call keeps the request's other _meta", "tools/call", `{"name":"whoami","_meta":` + modernMeta(`{}`, `"progressToken":7`) + `}`,
			`{"resultType":"complete",` + serverInfoMeta + `,"content":[{"type":"text","text":"2026-07-28 modern sampling=false"}]}`},
		{"missing capability", "tools/call", `{"name":"sample","_meta":` + meta + `}`,
			`{"code":-32021,"message":"Missing required client capability","data":{"requiredCapabilities":{"sampling":{}}}}`},
		{"missing capability: URL elicitation", "tools/call", `{"name":"elicit_url","_meta":` + modernMeta(`{"elicitation":{}}`) + `}`,
			`{"code":-32021,"message":"Missing required client capability","data":{"requiredCapabilities":{"elicitation":{"url":{}}}}}`},
		{"missing capability: roots", "tools/call", `{"name":"roots","_meta":` + meta + `}`,
			`{"code":-32021,"message":"Missing required client capability","data":{"requiredCapabilities":{"roots":{}}}}`},
		{"unknown tool", "tools/call", `{"name":"nope","_meta":` + meta + `}`,
			`{"code":-32602,"message":"Unknown tool: nope","data":{"name":"nope","available":["elicit_url","log","roots","sample","whoami"]}}`},
		{"resources/list", "resources/list", `{"_meta":` + meta + `}`,
			`{"resultType":"complete","ttlMs":0,"cacheScope":"private",` + serverInfoMeta + `,"resources":[{"uri":"file:///a","name":"a"}]}`},
		{"resources/templates/list", "resources/templates/list", `{"_meta":` + meta + `}`,
			`{"resultType":"complete","ttlMs":0,"cacheScope":"private",` + serverInfoMeta + `,"resourceTemplates":[]}`},
		{"resources/read", "resources/read", `{"uri":"file:///a","_meta":` + meta + `}`,
			`{"resultType":"complete","ttlMs":0,"cacheScope":"private",` + serverInfoMeta + `,"contents":[{"uri":"file:///a","text":"A"}]}`},
		{"resource not found is -32602", "resources/read", `{"uri":"file:///b","_meta":` + meta + `}`,
			`{"code":-32602,"message":"Resource not found","data":{"uri":"file:///b"}}`},
		{"prompts/list", "prompts/list", `{"_meta":` + meta + `}`,
			`{"resultType":"complete","ttlMs":0,"cacheScope":"private",` + serverInfoMeta + `,"prompts":[{"name":"p"}]}`},
		{"prompts/get", "prompts/get", `{"name":"p","_meta":` + meta + `}`,
			`{"resultType":"complete",` + serverInfoMeta + `,"messages":[{"role":"user","content":{"type":"text","text":"P"}}]}`},
		{"completion/complete", "completion/complete",
			`{"ref":{"type":"ref/prompt","name":"p"},"argument":{"name":"a","value":""},"_meta":` + meta + `}`,
			`{"resultType":"complete",` + serverInfoMeta + `,"completion":{"values":["x"]}}`},
		{"a method of the user's own", "my/method", `{"_meta":` + meta + `}`,
			`{"resultType":"complete",` + serverInfoMeta + `,"version":"2026-07-28"}`},
	}
	for _, transport := range []string{"stdio", "inprocess"} {
		t.Run(transport, func(t *testing.T) {
			p := newStatelessPeer(t, statelessServer(t), transport)
			for _, tc := range cases {
				if got, want := p.call(tc.method, tc.params), canon(t, tc.want); got != want {
					t.Errorf("%s:\n got %s\nwant %s", tc.name, got, want)
				}
			}
			select {
			case l := <-p.logs:
				t.Errorf("log message %s sent to requests that asked for none", l)
			default:
			}
		})
	}
}

// TestStateless_logLevel checks that a request's handler logs at the
// level its _meta asks for, and not at all without one.
func TestStateless_logLevel(t *testing.T) {
	p := newStatelessPeer(t, statelessServer(t), "inprocess")
	want := canon(t, `{"resultType":"complete",`+serverInfoMeta+`,"content":[{"type":"text","text":"logged"}]}`)
	if got := p.call("tools/call", `{"name":"log","_meta":`+modernMeta(`{}`, `"io.modelcontextprotocol/logLevel":"warning"`)+`}`); got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
	if got := p.call("tools/call", `{"name":"log","_meta":`+modernMeta(`{}`, `"io.modelcontextprotocol/logLevel":"info"`)+`}`); got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
	// A message of the call is sent before its answer: it is here.
	select {
	case l := <-p.logs:
		if l != `{"level":"info","logger":"l","data":"hello"}` {
			t.Fatalf("log %s", l)
		}
	default:
		t.Fatal("no log message for a request that asked for info")
	}
	select {
	case l := <-p.logs:
		t.Fatalf("a second log message %s: the warning-level request got one", l)
	default:
	}
}

// TestStateless_besideASession checks both eras on one connection: a
// stateless request before initialize, then a 2025-11-25 session whose
// requests are answered as before (no resultType, -32002 for a resource
// not found, ping and logging/setLevel served), with stateless requests
// between them still served on their own.
func TestStateless_besideASession(t *testing.T) {
	for _, transport := range []string{"stdio", "inprocess"} {
		t.Run(transport, func(t *testing.T) {
			p := newStatelessPeer(t, statelessServer(t), transport)
			modern := `{"name":"whoami","_meta":` + modernMeta(`{}`) + `}`
			wantModern := canon(t, `{"resultType":"complete",`+serverInfoMeta+`,"content":[{"type":"text","text":"2026-07-28 modern sampling=false"}]}`)
			if got := p.call("tools/call", modern); got != wantModern {
				t.Fatalf("stateless before initialize: %s", got)
			}
			if got, want := p.call("tools/call", `{"name":"whoami"}`),
				canon(t, `{"code":-32600,"message":"Invalid Request: the session is not initialized (send initialize first)","data":null}`); got != want {
				t.Fatalf("legacy before initialize: %s", got)
			}
			// A client that asks initialize for 2026-07-28 is given the
			// newest version that has initialize.
			init := p.call("initialize", `{"protocolVersion":"2026-07-28","capabilities":{"sampling":{}},"clientInfo":{"name":"old","version":"1"}}`)
			if !strings.Contains(init, `"protocolVersion":"2025-11-25"`) || strings.Contains(init, "resultType") {
				t.Fatalf("initialize: %s", init)
			}
			for _, c := range []struct{ method, params, want string }{
				{"tools/call", `{"name":"whoami"}`, `{"content":[{"type":"text","text":"2025-11-25 old sampling=true"}]}`},
				{"tools/call", modern, wantModern},
				{"tools/call", `{"name":"whoami","_meta":{"io.modelcontextprotocol/protocolVersion":"2025-11-25"}}`,
					`{"content":[{"type":"text","text":"2025-11-25 old sampling=true"}]}`},
				{"resources/read", `{"uri":"file:///b"}`, `{"code":-32002,"message":"Resource not found","data":{"uri":"file:///b"}}`},
				{"ping", ``, `{}`},
				{"logging/setLevel", `{"level":"debug"}`, `{}`},
				{"my/method", ``, `{"version":"2025-11-25"}`},
				{"my/method", `["io.modelcontextprotocol/protocolVersion","2026-07-28"]`, `{"version":"2025-11-25"}`},
				{"server/discover", `{}`, `{"code":-32602,"message":"Invalid params: _meta must carry io.modelcontextprotocol/protocolVersion (a protocol version without initialize, such as 2026-07-28)","data":null}`},
			} {
				if got, want := p.call(c.method, c.params), canon(t, c.want); got != want {
					t.Errorf("%s %s:\n got %s\nwant %s", c.method, c.params, got, want)
				}
			}
		})
	}
}

// TestStateless_resultMembers checks how the members of the version are
// put into a result that has some of them already.
func TestStateless_resultMembers(t *testing.T) {
	for _, tc := range []struct{ name, result, want string }{
		{"empty", `{}`, `{"resultType":"complete",` + serverInfoMeta + `}`},
		{"own _meta", `{"_meta":{"k":1},"x":2}`,
			`{"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"srv","version":"1.0"},"k":1},"x":2}`},
		{"empty _meta", `{"_meta":{}}`, `{"resultType":"complete",` + serverInfoMeta + `}`},
		{"white space", ` { "_meta" : { } , "x" : { } } `, `{"resultType":"complete",` + serverInfoMeta + `,"x":{}}`},
		{"empty, white space", `{ }`, `{"resultType":"complete",` + serverInfoMeta + `}`},
		{"not an object", `[1]`, `[1]`},
		{"own ttlMs", `{"ttlMs":5}`, `{"resultType":"complete",` + serverInfoMeta + `,"ttlMs":5}`},
		{"own serverInfo and resultType", `{"resultType":"input_required","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"other","version":"0"}}}`,
			`{"resultType":"input_required","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"other","version":"0"}}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := mcp.NewServer(&mcp.Implementation{Name: "srv", Version: "1.0"}, nil)
			must(t, srv.AddMethod("raw", router.HandlerFunc(func(context.Context, *router.Request) (any, error) {
				return json.RawMessage(tc.result), nil
			}), nil))
			p := newStatelessPeer(t, srv, "inprocess")
			if got, want := p.call("raw", `{"_meta":`+modernMeta(`{}`)+`}`), canon(t, tc.want); got != want {
				t.Fatalf("got %s, want %s", got, want)
			}
		})
	}
}

// TestStateless_besideTheGoClient checks a session of the Go client
// (2025-11-25) and stateless requests on its connection, in process and
// over stdio: each is answered in its own era.
func TestStateless_besideTheGoClient(t *testing.T) {
	for _, transport := range []string{"stdio", "inprocess"} {
		t.Run(transport, func(t *testing.T) {
			srv := statelessServer(t)
			c := mcp.NewClient(&mcp.Implementation{Name: "goclient", Version: "3"}, &mcp.ClientOptions{ProtocolVersion: mcp.Version20251125})
			var cs *mcp.ClientSession
			if transport == "inprocess" {
				cs = connectInProcess(t, srv, c)
			} else {
				a, b := net.Pipe()
				done := make(chan error, 1)
				go func() { done <- srv.Run(context.Background(), a) }()
				var err error
				cs, err = c.ConnectIO(context.Background(), b)
				must(t, err)
				t.Cleanup(func() {
					cs.Close()
					<-done
				})
			}
			ctx := context.Background()
			for range 2 {
				res, err := cs.CallTool(ctx, "whoami", nil)
				must(t, err)
				if got := res.Content[0].(*mcp.TextContent).Text; got != "2025-11-25 goclient sampling=false" {
					t.Fatalf("session call: %s", got)
				}
				raw, err := cs.Conn().CallRaw(ctx, "tools/call", codec.Raw(`{"name":"whoami","_meta":`+modernMeta(`{"sampling":{}}`)+`}`))
				must(t, err)
				if got, want := canon(t, string(raw)), canon(t, `{"resultType":"complete",`+serverInfoMeta+
					`,"content":[{"type":"text","text":"2026-07-28 modern sampling=true"}]}`); got != want {
					t.Fatalf("stateless call: got %s, want %s", got, want)
				}
			}
			if n := len(srv.Sessions()); n != 1 {
				t.Fatalf("%d sessions, want the Go client's alone", n)
			}
		})
	}
}

// The engine's keys of _meta (version, client capabilities, client info,
// log level) are the session's to say, not the params' Meta: a handler
// finds in Meta the request's other keys alone, whichever decoder took
// the params (the tools/call fast path, or sonic when they are not
// common: here the escaped key and the null arguments).
func TestStateless_metaHoldsTheRequestsOwnKeys(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "srv", Version: "1.0"}, nil)
	must(t, srv.AddTool(&mcp.Tool{Name: "meta"}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if req.Params.Meta == nil {
			return textResult(req.Session.ProtocolVersion() + " nil"), nil
		}
		keys := slices.Sorted(maps.Keys(req.Params.Meta))
		return textResult(req.Session.ProtocolVersion() + " " + strings.Join(keys, ",")), nil
	}))
	p := newStatelessPeer(t, srv, "inprocess")
	for _, tc := range []struct{ meta, want string }{
		{modernMeta(`{}`), "2026-07-28 nil"},
		{modernMeta(`{}`, `"io.modelcontextprotocol/logLevel":"info"`), "2026-07-28 nil"},
		{modernMeta(`{}`, `"progressToken":7`, `"x.example/k":1`), "2026-07-28 progressToken,x.example/k"},
		{modernMeta(`{}`, `"io.modelcontextprotocol\u002flogLevel":"info"`), "2026-07-28 nil"},
		{modernMeta(`{"sampling":{}}`, `"k":1`) + `,"arguments":null`, "2026-07-28 k"},
	} {
		want := canon(t, `{"resultType":"complete",`+serverInfoMeta+`,"content":[{"type":"text","text":"`+tc.want+`"}]}`)
		if got := p.call("tools/call", `{"name":"meta","_meta":`+tc.meta+`}`); got != want {
			t.Errorf("_meta %s: got %s, want %s", tc.meta, got, want)
		}
	}
}
