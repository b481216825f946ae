package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/router"
)

func TestLifecycle_pingIsAnsweredBeforeInitialize(t *testing.T) {
	p := newRawPeer(t, mcp.NewServer(nil, nil))
	got := p.roundTrip(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	if want := `{"jsonrpc":"2.0","id":1,"result":{}}`; got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
}

func TestLifecycle_requestsBeforeInitializeAreRefused(t *testing.T) {
	srv := mcp.NewServer(nil, nil)
	srv.AddMethod("custom", router.HandlerFunc(func(context.Context, *router.Request) (any, error) { return "ok", nil }), nil)
	p := newRawPeer(t, srv)
	for _, m := range []string{"tools/list", "resources/read", "logging/setLevel", "custom"} {
		got := p.roundTrip(`{"jsonrpc":"2.0","id":7,"method":"` + m + `","params":{}}`)
		if !strings.Contains(got, `"code":-32600`) || !strings.Contains(got, `not initialized`) {
			t.Errorf("%s before initialize: got %s", m, got)
		}
	}
	// Notifications before initialize are ignored: the next answer is the ping's.
	p.send(`{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`)
	if got := p.roundTrip(`{"jsonrpc":"2.0","id":8,"method":"ping"}`); got != `{"jsonrpc":"2.0","id":8,"result":{}}` {
		t.Fatalf("got %s", got)
	}
}

func TestLifecycle_negotiatesTheVersion(t *testing.T) {
	for _, tc := range []struct{ asked, want string }{
		{"2025-11-25", "2025-11-25"},
		{"2025-06-18", "2025-06-18"},
		{"2025-03-26", "2025-03-26"},
		{"2024-11-05", "2024-11-05"},
		{"2026-07-28", mcp.LatestVersion},
		{"1.0.0", mcp.LatestVersion},
		{"", mcp.LatestVersion},
	} {
		t.Run("asked="+tc.asked, func(t *testing.T) {
			cl := newClient(t, mcp.NewServer(&mcp.Implementation{Name: "srv", Version: "1"}, nil))
			res := cl.initialize(tc.asked)
			if res.ProtocolVersion != tc.want {
				t.Fatalf("got %q, want %q", res.ProtocolVersion, tc.want)
			}
			if res.ServerInfo == nil || res.ServerInfo.Name != "srv" {
				t.Fatalf("serverInfo %+v", res.ServerInfo)
			}
			if got := cl.ss.ProtocolVersion(); got != tc.want {
				t.Fatalf("session says %q", got)
			}
			if ci := cl.ss.ClientInfo(); ci == nil || ci.Name != "test-client" {
				t.Fatalf("client info %+v", ci)
			}
		})
	}
}

func TestLifecycle_sessionsKeepTheirOwnVersions(t *testing.T) {
	srv := mcp.NewServer(nil, nil)
	a, b := newClient(t, srv), newClient(t, srv)
	a.initialize("2024-11-05")
	b.initialize("2025-11-25")
	if a.ss.ProtocolVersion() != "2024-11-05" || b.ss.ProtocolVersion() != "2025-11-25" {
		t.Fatalf("versions %q and %q", a.ss.ProtocolVersion(), b.ss.ProtocolVersion())
	}
}

func TestLifecycle_batchesOnlyUnder20250326(t *testing.T) {
	batch := `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]`
	for _, v := range mcp.SupportedVersions() {
		t.Run(v, func(t *testing.T) {
			p := newRawPeer(t, mcp.NewServer(nil, nil))
			if got := p.roundTrip(batch); !strings.Contains(got, `"code":-32600`) {
				t.Fatalf("batch before initialize: got %s", got)
			}
			p.roundTrip(fmt.Sprintf(initMsg, v))
			got := p.roundTrip(batch)
			if v == mcp.Version20250326 {
				if want := `[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","id":2,"result":{}}]`; got != want {
					t.Fatalf("got %s, want %s", got, want)
				}
			} else if !strings.Contains(got, `"code":-32600`) || !strings.Contains(got, "batch") {
				t.Fatalf("batch under %s: got %s", v, got)
			}
		})
	}
}

func TestLifecycle_secondInitializeIsRefused(t *testing.T) {
	cl := newClient(t, mcp.NewServer(nil, nil))
	cl.initialize(mcp.LatestVersion)
	e := cl.callErr("initialize", map[string]any{"protocolVersion": mcp.LatestVersion, "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "x", "version": "1"}})
	if e.Code != codec.CodeInvalidRequest {
		t.Fatalf("got %v", e)
	}
}

func TestLifecycle_capabilitiesFollowWhatIsRegistered(t *testing.T) {
	srv := mcp.NewServer(nil, nil)
	cl := newClient(t, srv)
	res := cl.initialize(mcp.LatestVersion)
	c := res.Capabilities
	if c.Logging == nil || c.Tools != nil || c.Resources != nil || c.Prompts != nil || c.Completions != nil {
		t.Fatalf("empty server declares %+v", c)
	}

	srv = mcp.NewServer(nil, &mcp.ServerOptions{CompletionHandler: func(context.Context, *mcp.CompleteRequest) (*mcp.CompleteResult, error) { return nil, nil }})
	err := errors.Join(
		srv.AddTool(&mcp.Tool{Name: "t"}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return nil, nil }),
		srv.AddResource(&mcp.Resource{URI: "test://r", Name: "r"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) { return nil, nil }),
		srv.AddPrompt(&mcp.Prompt{Name: "p"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) { return nil, nil }),
	)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := newClient(t, srv).call("initialize", map[string]any{"protocolVersion": mcp.LatestVersion, "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "x", "version": "1"}})
	if err != nil {
		t.Fatal(err)
	}
	want := `"capabilities":{"logging":{},"completions":{},"prompts":{"listChanged":true},"resources":{"subscribe":true,"listChanged":true},"tools":{"listChanged":true}}`
	if !strings.Contains(string(raw), want) {
		t.Fatalf("got %s, want it to hold %s", raw, want)
	}
}

func TestLifecycle_unknownMethodIsMethodNotFound(t *testing.T) {
	cl := newClient(t, mcp.NewServer(nil, nil))
	cl.initialize(mcp.LatestVersion)
	if e := cl.callErr("tools/unknown", nil); e.Code != codec.CodeMethodNotFound {
		t.Fatalf("got %v", e)
	}
}

func TestLifecycle_customMethodsPassThrough(t *testing.T) {
	srv := mcp.NewServer(nil, nil)
	err := srv.AddMethod("x/echo", router.Func(func(ctx context.Context, p map[string]string) (string, error) {
		if mcp.SessionFromContext(ctx) == nil {
			return "", fmt.Errorf("no session")
		}
		return p["say"], nil
	}), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.AddMethod("tools/call", router.HandlerFunc(func(context.Context, *router.Request) (any, error) { return nil, nil }), nil); err != mcp.ErrReservedMethod {
		t.Fatalf("AddMethod(tools/call) = %v", err)
	}
	cl := newClient(t, srv)
	cl.initialize(mcp.LatestVersion)
	var got string
	cl.mustCall("x/echo", map[string]string{"say": "hi"}, &got)
	if got != "hi" {
		t.Fatalf("got %q", got)
	}
}

func TestLifecycle_pingBothWays(t *testing.T) {
	cl := newClient(t, mcp.NewServer(nil, nil))
	cl.initialize(mcp.LatestVersion)
	cl.mustCall("ping", nil, nil)
	cl.serve("ping", func(context.Context, json.RawMessage) (any, error) { return map[string]any{}, nil })
	if err := cl.ss.Ping(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func TestLifecycle_plainMethodsAreServedBeforeInitialize(t *testing.T) {
	srv := mcp.NewServer(nil, nil)
	err := srv.AddPlainMethod("subtract", router.Func(func(ctx context.Context, p [2]float64) (float64, error) {
		return p[0] - p[1], nil
	}), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.AddPlainMethod("initialize", router.HandlerFunc(func(context.Context, *router.Request) (any, error) { return nil, nil }), nil); err != mcp.ErrReservedMethod {
		t.Fatalf("AddPlainMethod(initialize) = %v", err)
	}
	p := newRawPeer(t, srv)
	if got, want := p.roundTrip(`{"jsonrpc":"2.0","id":1,"method":"subtract","params":[42,23]}`), `{"jsonrpc":"2.0","id":1,"result":19}`; got != want {
		t.Fatalf("before initialize: got %s, want %s", got, want)
	}
	// Plain methods leave the session's state alone: MCP is still refused.
	if got := p.roundTrip(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`); !strings.Contains(got, `"code":-32600`) {
		t.Fatalf("tools/list after a plain method: got %s", got)
	}
	p.roundTrip(fmt.Sprintf(initMsg, mcp.LatestVersion))
	if got, want := p.roundTrip(`{"jsonrpc":"2.0","id":3,"method":"subtract","params":[1,2]}`), `{"jsonrpc":"2.0","id":3,"result":-1}`; got != want {
		t.Fatalf("after initialize: got %s, want %s", got, want)
	}
	if !srv.RemoveMethod("subtract") {
		t.Fatal("RemoveMethod(subtract) = false")
	}
}
