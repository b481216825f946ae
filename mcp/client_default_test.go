package mcp_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/router"
)

// A client made without options speaks 2026-07-28 with mcpwire's server,
// over every transport: server/discover, no initialize, no session kept.
func TestClient_defaultSpeaksTheStatelessVersion(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			srv := mcp.NewServer(nil, nil)
			must(t, addEcho(srv))
			var seen recorder // the methods served (client_middleware_test.go)
			srv.Use(seen.mw)
			cs := tr.connect(t, srv, mcp.NewClient(nil, nil))
			if v := cs.ProtocolVersion(); v != mcp.Version20260728 {
				t.Fatalf("ProtocolVersion = %q, want %s", v, mcp.Version20260728)
			}
			if r, err := cs.CallTool(ctx10(t), "echo", map[string]string{"message": "hi"}); err != nil || r.IsError {
				t.Fatalf("CallTool: %v %+v", err, r)
			}
			got := strings.Fields(seen.String())
			if len(got) == 0 || got[0] != "server/discover" || slices.Contains(got, "initialize") || !slices.Contains(got, "tools/call") {
				t.Errorf("the server served %q, want server/discover first and no initialize", got)
			}
			if n := len(srv.Sessions()); n != 0 {
				t.Errorf("%d sessions on the server, want none", n)
			}
		})
	}
}

// A client made without options, given a server of the older versions
// (server/discover unknown: -32601, as any server of 2025 answers it),
// falls back to initialize with LatestVersion, and everything of that
// version works, ping included.
func TestClient_defaultFallsBackToInitialize(t *testing.T) {
	r, versions := legacyServer(nil)
	if !r.Unregister("server/discover") {
		t.Fatal("no server/discover to remove")
	}
	handle(r, "ping", func([]byte) (any, error) { return mcp.Empty{}, nil })
	handle(r, "tools/call", func([]byte) (any, error) { return codec.Raw(`{"content":[{"type":"text","text":"old"}]}`), nil })
	cs, err := fakeServer(t, r, mcp.NewClient(nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	if cs.ProtocolVersion() != mcp.LatestVersion || !slices.Equal(*versions, []string{mcp.LatestVersion}) {
		t.Fatalf("session of %q after initialize with %q, want %s", cs.ProtocolVersion(), *versions, mcp.LatestVersion)
	}
	must(t, cs.Ping(ctx10(t)))
	if res, err := cs.CallTool(ctx10(t), "any", nil); err != nil || res.Content[0].(*mcp.TextContent).Text != "old" {
		t.Fatalf("CallTool: %+v, %v", res, err)
	}
}

// What 2026-07-28 removed fails at once, nothing sent: ping and the
// tasks of 2025-11-25; notifications/roots/list_changed is not sent
// either (the server asks for the roots whenever it needs them).
func TestClient_defaultRefusesWhatTheVersionRemoved(t *testing.T) {
	r := router.New()
	handle(r, "server/discover", func([]byte) (any, error) {
		return map[string]any{"supportedVersions": []string{mcp.Version20260728}, "capabilities": map[string]any{}}, nil
	})
	handle(r, "tools/list", func([]byte) (any, error) { return codec.Raw(`{"tools":[]}`), nil })
	var seen recorder // the methods served (client_middleware_test.go)
	r.Use(seen.mw)
	cs, err := fakeServer(t, r, mcp.NewClient(nil, &mcp.ClientOptions{
		RootsHandler: func(context.Context, *mcp.ClientSession) (*mcp.ListRootsResult, error) {
			return &mcp.ListRootsResult{}, nil
		},
	}))
	if err != nil {
		t.Fatal(err)
	}
	ctx := ctx10(t)
	_, errTask := cs.CallToolAsTask(ctx, &mcp.CallToolParams{Name: "t"})
	_, errGet := cs.GetTask(ctx, "x")
	_, errResult := cs.TaskResult(ctx, "x")
	_, errList := cs.ListTasks(ctx, nil)
	_, errCancel := cs.CancelTask(ctx, "x")
	for what, err := range map[string]error{"ping": cs.Ping(ctx), "tools/call as a task": errTask, "tasks/get": errGet,
		"tasks/result": errResult, "tasks/list": errList, "tasks/cancel": errCancel} {
		if !errors.Is(err, mcp.ErrNotInVersion) || !strings.Contains(err.Error(), what+" is not part of protocol version 2026-07-28") {
			t.Errorf("%s: %v, want ErrNotInVersion naming it", what, err)
		}
	}
	must(t, cs.NotifyRootsListChanged(ctx))
	// A request after them all: the server has seen it alone.
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	if got := seen.String(); got != "server/discover tools/list" {
		t.Errorf("the server saw %q", got)
	}
}

// Under 2026-07-28 SetLoggingLevel sends nothing: every later request
// carries the level in its _meta, replacing the caller's, and the server
// sends the log messages at or above it; before it, none.
func TestClient_defaultSetLoggingLevelRidesEachRequest(t *testing.T) {
	srv := mcp.NewServer(nil, nil)
	must(t, srv.AddTool(&mcp.Tool{Name: "log"}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		for _, l := range []mcp.LoggingLevel{mcp.LevelDebug, mcp.LevelWarning, mcp.LevelError} {
			req.Log(ctx, l, "", string(l))
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
	}))
	var seen recorder // the methods served (client_middleware_test.go)
	srv.Use(seen.mw)
	var mu sync.Mutex
	var logs []string
	cs := connect(t, srv, mcp.NewClient(nil, &mcp.ClientOptions{
		LoggingMessageHandler: func(_ context.Context, _ *mcp.ClientSession, p *mcp.LoggingMessageParams) {
			mu.Lock()
			logs = append(logs, string(p.Level))
			mu.Unlock()
		},
	}))
	ctx := ctx10(t)
	// Notifications are handled in order on the client's reader, before
	// the answer they preceded: each call's logs are in when it returns.
	got := func(p *mcp.CallToolParams) string {
		t.Helper()
		mu.Lock()
		logs = nil
		mu.Unlock()
		if _, err := cs.CallToolWith(ctx, p); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		defer mu.Unlock()
		return strings.Join(logs, ",")
	}
	if l := got(&mcp.CallToolParams{Name: "log"}); l != "" {
		t.Fatalf("before SetLoggingLevel: logs %q, want none", l)
	}
	must(t, cs.SetLoggingLevel(ctx, mcp.LevelWarning))
	if l := got(&mcp.CallToolParams{Name: "log"}); l != "warning,error" {
		t.Fatalf("at warning: logs %q", l)
	}
	if l := got(&mcp.CallToolParams{Name: "log", Meta: mcp.Meta{mcp.MetaLogLevel: "debug", "progressToken": 1}}); l != "warning,error" {
		t.Fatalf("the caller's own level in _meta: logs %q, want the session's", l)
	}
	if err := cs.SetLoggingLevel(ctx, "loud"); err == nil {
		t.Fatal("an unknown level was accepted")
	}
	if got := seen.String(); strings.Contains(got, "logging/setLevel") {
		t.Errorf("logging/setLevel sent under 2026-07-28: %q", got)
	}
}
