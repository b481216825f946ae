package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/mcp"
)

// In a synctest bubble: none() waits until every goroutine is blocked,
// so a notification the server would send has been received by then.
func TestLogging_levelsAreFilteredPerSession(t *testing.T) {
	synctest.Test(t, testLogging_levelsAreFilteredPerSession)
}

func testLogging_levelsAreFilteredPerSession(t *testing.T) {
	srv := mcp.NewServer(nil, nil)
	must(t, srv.AddTool(&mcp.Tool{Name: "log"}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		for _, l := range []mcp.LoggingLevel{mcp.LevelDebug, mcp.LevelInfo, mcp.LevelWarning, mcp.LevelError} {
			if err := req.Log(ctx, l, "test", map[string]string{"level": string(l)}); err != nil {
				return nil, err
			}
		}
		return nil, nil
	}))
	quiet, loud := newClient(t, srv), newClient(t, srv)
	quiet.initialize(mcp.LatestVersion)
	loud.initialize(mcp.LatestVersion)
	quiet.mustCall("logging/setLevel", map[string]any{"level": "warning"}, nil)
	loud.mustCall("logging/setLevel", map[string]any{"level": "debug"}, nil)

	quiet.mustCall("tools/call", map[string]any{"name": "log"}, nil)
	for _, want := range []string{"warning", "error"} {
		n := quiet.next()
		if n.method != "notifications/message" || string(n.params) != `{"level":"`+want+`","logger":"test","data":{"level":"`+want+`"}}` {
			t.Fatalf("got %s %s", n.method, n.params)
		}
	}
	quiet.none()
	loud.mustCall("tools/call", map[string]any{"name": "log"}, nil)
	for range 4 {
		loud.next()
	}

	if e := quiet.callErr("logging/setLevel", map[string]any{"level": "verbose"}); e.Code != codec.CodeInvalidParams {
		t.Fatalf("got %v", e)
	}
}

// In a synctest bubble: none() waits until every goroutine is blocked,
// so a notification the server would send has been received by then.
func TestLogging_defaultLevelIsInfo(t *testing.T) {
	synctest.Test(t, testLogging_defaultLevelIsInfo)
}

func testLogging_defaultLevelIsInfo(t *testing.T) {
	srv := mcp.NewServer(nil, nil)
	must(t, srv.AddTool(&mcp.Tool{Name: "log"}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		req.Log(ctx, mcp.LevelDebug, "", "hidden")
		req.Log(ctx, mcp.LevelInfo, "", "shown")
		return nil, nil
	}))
	cl := newClient(t, srv)
	cl.initialize(mcp.LatestVersion)
	cl.mustCall("tools/call", map[string]any{"name": "log"}, nil)
	if n := cl.next(); string(n.params) != `{"level":"info","data":"shown"}` {
		t.Fatalf("got %s", n.params)
	}
	cl.none()
}

// In a synctest bubble: none() waits until every goroutine is blocked,
// so a notification the server would send has been received by then.
func TestProgress_notificationsCarryTheRequestsToken(t *testing.T) {
	synctest.Test(t, testProgress_notificationsCarryTheRequestsToken)
}

func testProgress_notificationsCarryTheRequestsToken(t *testing.T) {
	srv := mcp.NewServer(nil, nil)
	must(t, srv.AddTool(&mcp.Tool{Name: "slow"}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		for _, p := range []float64{0, 50, 100} {
			if err := req.Progress(ctx, p, 100, ""); err != nil {
				return nil, err
			}
		}
		return nil, nil
	}))
	cl := newClient(t, srv)
	cl.initialize(mcp.LatestVersion)
	for _, token := range []string{`"tok-1"`, `17`} {
		cl.mustCall("tools/call", map[string]any{"name": "slow", "_meta": map[string]any{"progressToken": json.RawMessage(token)}}, nil)
		for _, p := range []string{"0", "50", "100"} {
			n := cl.next()
			if want := `{"progressToken":` + token + `,"progress":` + p + `,"total":100}`; n.method != "notifications/progress" || string(n.params) != want {
				t.Fatalf("got %s %s, want %s", n.method, n.params, want)
			}
		}
	}
	// No token: no progress.
	cl.mustCall("tools/call", map[string]any{"name": "slow"}, nil)
	cl.none()
}

func TestCancellation_cancelsTheHandlerAndSendsNoResponse(t *testing.T) {
	srv := mcp.NewServer(nil, nil)
	started, returned := make(chan struct{}), make(chan error, 1)
	must(t, srv.AddTool(&mcp.Tool{Name: "wait"}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		close(started)
		<-ctx.Done()
		returned <- ctx.Err()
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "too late"}}}, nil
	}))
	p := newRawPeer(t, srv)
	p.roundTrip(fmt.Sprintf(initMsg, mcp.LatestVersion))
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	p.send(`{"jsonrpc":"2.0","id":"call-5","method":"tools/call","params":{"name":"wait"}}`)
	<-started
	p.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"call-5","reason":"user"}}`)
	if err := <-returned; err != context.Canceled {
		t.Fatalf("handler context ended with %v", err)
	}
	if got := p.roundTrip(`{"jsonrpc":"2.0","id":6,"method":"ping"}`); got != `{"jsonrpc":"2.0","id":6,"result":{}}` {
		t.Fatalf("after a cancelled call the next message is %s", got)
	}
	// Cancelling what is unknown or done is ignored.
	p.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99}}`)
	p.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{}}`)
	if got := p.roundTrip(`{"jsonrpc":"2.0","id":7,"method":"ping"}`); got != `{"jsonrpc":"2.0","id":7,"result":{}}` {
		t.Fatalf("got %s", got)
	}
}

func TestPagination_cursorsWalkEveryItemOnce(t *testing.T) {
	srv := mcp.NewServer(nil, &mcp.ServerOptions{PageSize: 2})
	for i := range 5 {
		must(t, srv.AddTool(&mcp.Tool{Name: fmt.Sprintf("t%d", i)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return nil, nil }))
	}
	cl := newClient(t, srv)
	cl.initialize(mcp.LatestVersion)
	var names []string
	cursor, pages := "", 0
	for {
		var res mcp.ListToolsResult
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		cl.mustCall("tools/list", params, &res)
		pages++
		for _, tl := range res.Tools {
			names = append(names, tl.Name)
		}
		if res.NextCursor == "" {
			break
		}
		cursor = res.NextCursor
	}
	if got := strings.Join(names, ","); got != "t0,t1,t2,t3,t4" || pages != 3 {
		t.Fatalf("got %s in %d pages", got, pages)
	}
	for _, bad := range []string{"!!!", "dDE", "eA"} {
		if e := cl.callErr("tools/list", map[string]any{"cursor": bad}); e.Code != codec.CodeInvalidParams {
			t.Fatalf("cursor %q: got %v", bad, e)
		}
	}
}

// In a synctest bubble: none() waits until every goroutine is blocked,
// so a notification the server would send has been received by then.
func TestListChanged_everyInitializedSessionIsTold(t *testing.T) {
	synctest.Test(t, testListChanged_everyInitializedSessionIsTold)
}

func testListChanged_everyInitializedSessionIsTold(t *testing.T) {
	srv := mcp.NewServer(nil, &mcp.ServerOptions{Capabilities: &mcp.ServerCapabilities{
		Tools:     &mcp.ToolsCapability{ListChanged: true},
		Resources: &mcp.ResourcesCapability{ListChanged: true},
		Prompts:   &mcp.PromptsCapability{ListChanged: true},
	}})
	a, b, pending := newClient(t, srv), newClient(t, srv), newClient(t, srv)
	a.initialize(mcp.LatestVersion)
	b.initialize(mcp.Version20241105)
	noop := func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return nil, nil }
	must(t, srv.AddTool(&mcp.Tool{Name: "test_dynamic_tool"}, noop))
	for _, cl := range []*client{a, b} {
		if n := cl.next(); n.method != "notifications/tools/list_changed" {
			t.Fatalf("got %s", n.method)
		}
	}
	srv.RemoveTools("test_dynamic_tool")
	a.next()
	b.next()
	srv.RemoveTools("none")
	must(t, srv.AddResource(&mcp.Resource{URI: "x://y", Name: "y"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) { return nil, nil }))
	if n := a.next(); n.method != "notifications/resources/list_changed" {
		t.Fatalf("got %s", n.method)
	}
	must(t, srv.AddPrompt(&mcp.Prompt{Name: "p"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) { return nil, nil }))
	if n := a.next(); n.method != "notifications/prompts/list_changed" {
		t.Fatalf("got %s", n.method)
	}
	pending.none() // not initialised: not told
}

// In a synctest bubble: none() waits until every goroutine is blocked,
// so a notification the server would send has been received by then.
func TestListChanged_notPromisedNotSent(t *testing.T) {
	synctest.Test(t, testListChanged_notPromisedNotSent)
}

func testListChanged_notPromisedNotSent(t *testing.T) {
	srv := mcp.NewServer(nil, nil)
	cl := newClient(t, srv)
	cl.initialize(mcp.LatestVersion) // no tools yet: no tools capability
	must(t, srv.AddTool(&mcp.Tool{Name: "late"}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return nil, nil }))
	cl.none()
}

func TestClientRequests_samplingElicitationRoots(t *testing.T) {
	srv := mcp.NewServer(nil, nil)
	must(t, srv.AddTool(&mcp.Tool{Name: "test_sampling"}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res, err := req.Session.CreateMessage(ctx, &mcp.CreateMessageParams{
			Messages:  []*mcp.SamplingMessage{{Role: mcp.RoleUser, Content: []mcp.Content{&mcp.TextContent{Text: "Say hi"}}}},
			MaxTokens: 100,
		})
		if err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "LLM response: " + res.Content[0].(*mcp.TextContent).Text + " from " + res.Model}}}, nil
	}))
	must(t, srv.AddTool(&mcp.Tool{Name: "test_elicitation"}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: "Who are you?", RequestedSchema: json.RawMessage(`{"type":"object","properties":{"username":{"type":"string"}},"required":["username"]}`)})
		if err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: res.Action + " " + res.Content["username"].(string)}}}, nil
	}))
	must(t, srv.AddTool(&mcp.Tool{Name: "roots"}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res, err := req.Session.ListRoots(ctx)
		if err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: res.Roots[0].URI}}}, nil
	}))
	cl := newClient(t, srv)
	var sampled json.RawMessage
	cl.serve("sampling/createMessage", func(_ context.Context, p json.RawMessage) (any, error) {
		sampled = append(json.RawMessage(nil), p...)
		return json.RawMessage(`{"role":"assistant","content":{"type":"text","text":"hi"},"model":"m1","stopReason":"endTurn"}`), nil
	})
	cl.serve("elicitation/create", func(context.Context, json.RawMessage) (any, error) {
		return map[string]any{"action": "accept", "content": map[string]any{"username": "ada"}}, nil
	})
	cl.serve("roots/list", func(context.Context, json.RawMessage) (any, error) {
		return map[string]any{"roots": []any{map[string]any{"uri": "file:///home/ada"}}}, nil
	})
	cl.initialize(mcp.LatestVersion)
	for _, tc := range []struct{ tool, want string }{
		{"test_sampling", "LLM response: hi from m1"},
		{"test_elicitation", "accept ada"},
		{"roots", "file:///home/ada"},
	} {
		if r := callTool(cl, tc.tool, nil); r.IsError || r.Content[0].Text != tc.want {
			t.Fatalf("%s: got %+v", tc.tool, r)
		}
	}
	if want := `{"messages":[{"role":"user","content":{"type":"text","text":"Say hi"}}],"maxTokens":100}`; string(sampled) != want {
		t.Fatalf("sampling params %s, want %s", sampled, want)
	}
}

func TestClientRequests_needTheClientsCapability(t *testing.T) {
	srv := mcp.NewServer(nil, nil)
	p := newRawPeer(t, srv) // declares no capabilities
	p.roundTrip(fmt.Sprintf(initMsg, mcp.LatestVersion))
	ctx := context.Background()
	if _, err := p.ss.CreateMessage(ctx, &mcp.CreateMessageParams{MaxTokens: 1}); err != mcp.ErrNotSupported {
		t.Fatalf("sampling: %v", err)
	}
	if _, err := p.ss.Elicit(ctx, &mcp.ElicitParams{Message: "x"}); err != mcp.ErrNotSupported {
		t.Fatalf("elicitation: %v", err)
	}
	if _, err := p.ss.ListRoots(ctx); err != mcp.ErrNotSupported {
		t.Fatalf("roots: %v", err)
	}
}

func TestClientRequests_abandonedCallIsCancelledAtTheClient(t *testing.T) {
	srv := mcp.NewServer(nil, nil)
	cl := newClient(t, srv)
	asked := make(chan struct{})
	cl.serve("sampling/createMessage", func(ctx context.Context, _ json.RawMessage) (any, error) {
		close(asked)
		<-ctx.Done()
		return nil, ctx.Err()
	})
	cl.initialize(mcp.LatestVersion)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-asked
		cancel()
	}()
	_, err := cl.ss.CreateMessage(ctx, &mcp.CreateMessageParams{MaxTokens: 1})
	if err == nil {
		t.Fatal("no error")
	}
	n := cl.next()
	if n.method != "notifications/cancelled" || !strings.HasPrefix(string(n.params), `{"requestId":1,`) {
		t.Fatalf("got %s %s", n.method, n.params)
	}
}
