package mcp_test

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/mcp/streamable"
)

// connect runs a client against srv over an in-memory pipe.
func connect(t testing.TB, srv *mcp.Server, c *mcp.Client) *mcp.ClientSession {
	t.Helper()
	a, b := conn.Pipe()
	return connectOver(t, srv, c, conn.NewMessageStream(a, nil), conn.NewMessageStream(b, nil))
}

// connectInProcess runs a client against srv in process (conn.InProcess):
// calls served on the caller's goroutine.
func connectInProcess(t testing.TB, srv *mcp.Server, c *mcp.Client) *mcp.ClientSession {
	t.Helper()
	a, b := conn.InProcess()
	return connectOver(t, srv, c, a, b)
}

// connectOver serves srv on a and connects c on b.
func connectOver(t testing.TB, srv *mcp.Server, c *mcp.Client, a, b conn.Stream) *mcp.ClientSession {
	t.Helper()
	ss, err := srv.Connect(context.Background(), a)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := c.Connect(context.Background(), b)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Close()
		ss.Wait()
	})
	return cs
}

// connectOverHTTP serves srv over Streamable HTTP (package
// mcp/streamable) on a loopback address and connects c to it.
func connectOverHTTP(t testing.TB, srv *mcp.Server, c *mcp.Client) *mcp.ClientSession {
	t.Helper()
	h := streamable.NewHandler(srv, &streamable.Options{RetryInterval: 20 * time.Millisecond})
	ts := httptest.NewServer(h)
	cs, err := streamable.Connect(context.Background(), c, ts.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		h.Close()
		ts.Close()
	})
	return cs
}

// transports are what the client tests run over: an in-memory pipe, in
// process, and Streamable HTTP on a loopback address.
var transports = []struct {
	name    string
	connect func(testing.TB, *mcp.Server, *mcp.Client) *mcp.ClientSession
}{
	{"pipe", connect},
	{"inprocess", connectInProcess},
	{"http", connectOverHTTP},
}

// Every typed call works under the default version (2026-07-28) and
// under the latest with initialize; what 2026-07-28 removed (ping) fails
// at once.
func TestClient_typedCallsOfEveryFeature(t *testing.T) {
	for _, tr := range transports {
		for _, v := range []string{"", mcp.LatestVersion} {
			t.Run(tr.name+"/"+cmp.Or(v, "default"), func(t *testing.T) { typedCallsOfEveryFeature(t, tr.connect, v) })
		}
	}
}

func typedCallsOfEveryFeature(t *testing.T, connect func(testing.TB, *mcp.Server, *mcp.Client) *mcp.ClientSession, version string) {
	srv := resourceServer(t)
	must(t, addEcho(srv))
	must(t, srv.AddPrompt(&mcp.Prompt{Name: "p", Arguments: []*mcp.PromptArgument{{Name: "who", Required: true}}},
		func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: mcp.RoleUser, Content: &mcp.TextContent{Text: "hi " + req.Params.Arguments["who"]}}}}, nil
		}))
	cs := connect(t, srv, mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, &mcp.ClientOptions{ProtocolVersion: version}))
	ctx := context.Background()
	want, notFound := cmp.Or(version, mcp.DefaultClientVersion), codec.CodeResourceNotFound
	if mcp.IsStatelessVersion(want) {
		notFound = codec.CodeInvalidParams
	}
	if cs.ProtocolVersion() != want || cs.InitializeResult().Capabilities.Tools == nil {
		t.Fatalf("handshake: %+v", cs.InitializeResult())
	}
	if err := cs.Ping(ctx); mcp.IsStatelessVersion(want) != errors.Is(err, mcp.ErrNotInVersion) {
		t.Fatalf("ping under %s: %v", want, err)
	}

	var tools []string
	for tl, err := range cs.Tools(ctx) {
		must(t, err)
		tools = append(tools, tl.Name)
		if string(tl.InputSchema.(json.RawMessage)) != `{"type":"object","properties":{"message":{"type":"string"}},"required":["message"],"additionalProperties":false}` {
			t.Fatalf("schema %s", tl.InputSchema)
		}
	}
	if strings.Join(tools, ",") != "echo" {
		t.Fatalf("tools %v", tools)
	}
	res, err := cs.CallTool(ctx, "echo", map[string]string{"message": "hey"})
	if err != nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != "hey" {
		t.Fatalf("%+v, %v", res, err)
	}
	if _, err := cs.CallTool(ctx, "nope", nil); !isCode(err, codec.CodeInvalidParams) {
		t.Fatalf("unknown tool: %v", err)
	}

	n := 0
	for r, err := range cs.Resources(ctx) {
		must(t, err)
		if r.URI == "" {
			t.Fatal("empty uri")
		}
		n++
	}
	if n != 3 {
		t.Fatalf("%d resources", n)
	}
	tl, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil || len(tl.ResourceTemplates) != 1 {
		t.Fatalf("%+v, %v", tl, err)
	}
	rr, err := cs.ReadResource(ctx, "test://template/7/data")
	if err != nil || rr.Contents[0].Text != `{"id":"7"}` {
		t.Fatalf("%+v, %v", rr, err)
	}
	if _, err := cs.ReadResource(ctx, "test://none"); !isCode(err, notFound) {
		t.Fatalf("unknown resource: %v", err)
	}
	gp, err := cs.GetPrompt(ctx, "p", map[string]string{"who": "Ada"})
	if err != nil || gp.Messages[0].Content.(*mcp.TextContent).Text != "hi Ada" {
		t.Fatalf("%+v, %v", gp, err)
	}
	must(t, cs.SetLoggingLevel(ctx, mcp.LevelError))
	must(t, cs.Subscribe(ctx, "test://static-text"))
	must(t, cs.Unsubscribe(ctx, "test://static-text"))
}

// connectB connects a client of a session (LatestVersion), as the
// benchmarks measured before 2026-07-28 became the default; the stateless
// rows ask for it themselves.
func connectB(b *testing.B, srv *mcp.Server) *mcp.ClientSession {
	return connect(b, srv, mcp.NewClient(nil, &mcp.ClientOptions{ProtocolVersion: mcp.LatestVersion}))
}

func isCode(err error, c codec.Code) bool {
	e, ok := err.(*codec.Error)
	return ok && e.Code == c
}

func TestClient_handlersServeTheServersRequestsAndNotifications(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) { handlersServeTheServersRequestsAndNotifications(t, tr.connect) })
	}
}

func handlersServeTheServersRequestsAndNotifications(t *testing.T, connect func(testing.TB, *mcp.Server, *mcp.Client) *mcp.ClientSession) {
	srv := mcp.NewServer(nil, &mcp.ServerOptions{Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolsCapability{ListChanged: true}}})
	must(t, srv.AddResource(&mcp.Resource{URI: "test://watched-resource", Name: "w"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) { return nil, nil }))
	must(t, srv.AddTool(&mcp.Tool{Name: "all"}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		req.Progress(ctx, 1, 2, "half")
		req.Log(ctx, mcp.LevelWarning, "srv", "careful")
		m, err := req.Session.CreateMessage(ctx, &mcp.CreateMessageParams{MaxTokens: 10, Messages: []*mcp.SamplingMessage{{Role: mcp.RoleUser, Content: []mcp.Content{&mcp.TextContent{Text: "q"}}}}})
		if err != nil {
			return nil, err
		}
		e, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: "name?", RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}}})
		if err != nil {
			return nil, err
		}
		r, err := req.Session.ListRoots(ctx)
		if err != nil {
			return nil, err
		}
		text := m.Content[0].(*mcp.TextContent).Text + "|" + e.Action + ":" + e.Content["name"].(string) + "|" + r.Roots[0].URI
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
	}))

	var mu sync.Mutex
	var events []string
	record := func(s string) {
		mu.Lock()
		events = append(events, s)
		mu.Unlock()
	}
	updated := make(chan string, 1)
	changed := make(chan struct{}, 1)
	c := mcp.NewClient(nil, &mcp.ClientOptions{
		// The server's requests to the client while one handler runs,
		// its progress once and its log at the session's default level
		// are of the versions with initialize: under 2026-07-28 the
		// handler is re-run per round of input (rounds_test.go).
		ProtocolVersion: mcp.LatestVersion,
		CreateMessageHandler: func(_ context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{Role: mcp.RoleAssistant, Model: "m", Content: []mcp.Content{&mcp.TextContent{Text: "A:" + req.Params.Messages[0].Content[0].(*mcp.TextContent).Text}}}, nil
		},
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "ada"}}, nil
		},
		RootsHandler: func(context.Context, *mcp.ClientSession) (*mcp.ListRootsResult, error) {
			return &mcp.ListRootsResult{Roots: []*mcp.Root{{URI: "file:///w"}}}, nil
		},
		ProgressHandler: func(_ context.Context, _ *mcp.ClientSession, p *mcp.ProgressParams) {
			record("progress " + string(p.ProgressToken) + " " + p.Message)
		},
		LoggingMessageHandler: func(_ context.Context, _ *mcp.ClientSession, p *mcp.LoggingMessageParams) {
			record("log " + string(p.Level) + " " + p.Data.(string))
		},
		ResourceUpdatedHandler: func(_ context.Context, _ *mcp.ClientSession, p *mcp.ResourceUpdatedParams) { updated <- p.URI },
		ToolListChangedHandler: func(context.Context, *mcp.ClientSession) { changed <- struct{}{} },
	})
	cs := connect(t, srv, c)
	ctx := context.Background()
	res, err := cs.CallToolWith(ctx, &mcp.CallToolParams{Name: "all", Meta: mcp.Meta{"progressToken": "p1"}})
	if err != nil || res.Content[0].(*mcp.TextContent).Text != "A:q|accept:ada|file:///w" {
		t.Fatalf("%+v, %v", res, err)
	}
	mu.Lock()
	if got := strings.Join(events, ";"); got != `progress "p1" half;log warning careful` {
		t.Fatalf("events %s", got)
	}
	mu.Unlock()

	must(t, cs.Subscribe(ctx, "test://watched-resource"))
	must(t, srv.ResourceUpdated(ctx, "test://watched-resource"))
	if u := <-updated; u != "test://watched-resource" {
		t.Fatal(u)
	}
	must(t, addEcho(srv))
	select {
	case <-changed:
	case <-time.After(10 * time.Second):
		t.Fatal("no list_changed")
	}
}

// A call its caller cancels has the server's handler cancelled: by
// notifications/cancelled, or, under 2026-07-28 over HTTP, by its POST's
// end.
func TestClient_cancelledCallCancelsTheServersHandler(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) { cancelledCallCancelsTheServersHandler(t, tr.connect) })
		t.Run(tr.name+"/"+mcp.Version20260728, func(t *testing.T) {
			cancelledWith(t, tr.connect, &mcp.ClientOptions{ProtocolVersion: mcp.Version20260728})
		})
	}
}

func cancelledCallCancelsTheServersHandler(t *testing.T, connect func(testing.TB, *mcp.Server, *mcp.Client) *mcp.ClientSession) {
	cancelledWith(t, connect, nil)
}

func cancelledWith(t *testing.T, connect func(testing.TB, *mcp.Server, *mcp.Client) *mcp.ClientSession, o *mcp.ClientOptions) {
	srv := mcp.NewServer(nil, nil)
	started, stopped := make(chan struct{}), make(chan error, 1)
	must(t, srv.AddTool(&mcp.Tool{Name: "wait"}, func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		close(started)
		<-ctx.Done()
		stopped <- ctx.Err()
		return nil, nil
	}))
	cs := connect(t, srv, mcp.NewClient(nil, o))
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-started
		cancel()
	}()
	if _, err := cs.CallTool(ctx, "wait", nil); err == nil {
		t.Fatal("no error")
	}
	select {
	case err := <-stopped:
		if err != context.Canceled {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the server's handler was not cancelled")
	}
}

func TestClient_refusesAnUnsupportedVersion(t *testing.T) {
	a, b := conn.Pipe()
	defer a.Close()
	go func() {
		// A server that answers every request (server/discover, then
		// initialize) with an initialize result of a version nobody speaks.
		for {
			msg, err := a.ReadMessage()
			if err != nil {
				return
			}
			var req struct {
				ID json.RawMessage `json:"id"`
			}
			codec.Unmarshal(msg, &req)
			if req.ID == nil {
				continue
			}
			a.WriteMessage([]byte(`{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":{"protocolVersion":"1999-01-01","capabilities":{},"serverInfo":{"name":"old","version":"0"}}}`))
		}
	}()
	_, err := mcp.NewClient(nil, nil).Connect(context.Background(), conn.NewMessageStream(b, nil))
	if err != mcp.ErrUnsupportedVersion {
		t.Fatalf("got %v", err)
	}
}

func TestClient_connectsToACommandOverStdio(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a process")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), stdioServerEnv+"=1")
	cs, err := mcp.NewClient(nil, nil).ConnectCommand(context.Background(), cmd)
	if err != nil {
		t.Fatal(err)
	}
	if cs.InitializeResult().ServerInfo.Name != "stdio-echo" {
		t.Fatalf("%+v", cs.InitializeResult().ServerInfo)
	}
	res, err := cs.CallTool(context.Background(), "echo", map[string]string{"message": "via stdio"})
	if err != nil || res.Content[0].(*mcp.TextContent).Text != "via stdio" {
		t.Fatalf("%+v, %v", res, err)
	}
	must(t, cs.Close())
	if cmd.ProcessState == nil || !cmd.ProcessState.Exited() || cmd.ProcessState.ExitCode() != 0 {
		t.Fatalf("the server did not exit cleanly: %v", cmd.ProcessState)
	}
}

// CallTool encodes its arguments with the params: arguments that cannot
// be encoded fail the call before anything is sent, and the session
// stays usable; nil arguments are none.
func TestClient_CallToolArguments(t *testing.T) {
	srv := mcp.NewServer(nil, nil)
	must(t, addEcho(srv))
	must(t, srv.AddTool(&mcp.Tool{Name: "args"}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(req.Params.Arguments)}}}, nil
	}))
	cs := connect(t, srv, mcp.NewClient(nil, nil))
	ctx := context.Background()
	if _, err := cs.CallTool(ctx, "echo", map[string]any{"message": make(chan int)}); err == nil {
		t.Error("arguments holding a channel encoded")
	}
	for _, c := range []struct {
		args any
		want string
	}{
		{nil, ""},
		{struct{}{}, "{}"},
		{map[string]string{"message": "a\nb"}, `{"message":"a\nb"}`},
		{json.RawMessage(`{ "x" : 1 }`), `{"x":1}`},
	} {
		res, err := cs.CallTool(ctx, "args", c.args)
		if err != nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != c.want {
			t.Errorf("CallTool(%#v): %+v, %v; want arguments %s", c.args, res, err, c.want)
		}
	}
}
