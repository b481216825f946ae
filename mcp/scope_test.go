package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/middleware"
	"github.com/mcpwire/mcpwire/oauth"
)

// scopedServer serves a tool, a resource, a template and a prompt that
// each need a scope, and prompts/list needing one; ran counts the
// handlers that ran.
func scopedServer(t *testing.T, ran *atomic.Int32) *mcp.Server {
	t.Helper()
	srv := mcp.NewServer(nil, &mcp.ServerOptions{MethodScopes: map[string][]string{"prompts/list": {"prompts"}}})
	text := func(s string) *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
	}
	read := func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		ran.Add(1)
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{Text: "secret"}}}, nil
	}
	for _, err := range []error{
		srv.AddTool(&mcp.Tool{Name: "write", Scopes: []string{"files:write"}}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			ran.Add(1)
			return text("written"), nil
		}),
		srv.AddResource(&mcp.Resource{URI: "file:///secret", Name: "secret", Scopes: []string{"files:read"}}, read),
		srv.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "file:///private/{name}", Name: "private", Scopes: []string{"private"}}, read),
		srv.AddPrompt(&mcp.Prompt{Name: "plan", Scopes: []string{"prompts:plan"}}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			ran.Add(1)
			return &mcp.GetPromptResult{}, nil
		}),
	} {
		must(t, err)
	}
	return srv
}

// On a stream transport (stdio, TCP, Unix: one framed stream) with the
// token in params._meta.authorization, middleware.Auth with oauth.Bearer
// puts the principal in the context and each feature's scopes are checked
// before its handler runs: a missing one is -32010 with data naming it.
func TestScopes_streamTransportWithTokenInMeta(t *testing.T) {
	var ran atomic.Int32
	srv := scopedServer(t, &ran)
	verifier := oauth.VerifierFunc(func(_ context.Context, tok string) (*oauth.Principal, error) {
		sub, scopes, _ := strings.Cut(tok, "+")
		return &oauth.Principal{Issuer: "https://as.example", Subject: sub, Scopes: strings.Split(scopes, ",")}, nil
	})
	srv.Use(middleware.Auth(oauth.NewBearer(verifier, nil), nil))
	p := newRawPeer(t, srv)
	msg := func(id int, method, token, params string) string {
		if params != "" {
			params += ","
		}
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":{%s"_meta":{"authorization":"Bearer %s"}}}`, id, method, params, token)
	}
	if got := p.roundTrip(msg(0, "initialize", "alice", `"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}`)); !strings.Contains(got, `"result"`) {
		t.Fatalf("initialize: %s", got)
	}
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized","params":{"_meta":{"authorization":"Bearer alice"}}}`)
	for i, tc := range []struct {
		method, params, token, missing string // missing "": served
	}{
		{"tools/call", `"name":"write","arguments":{}`, "alice+files:read", "files:write"},
		{"tools/call", `"name":"write","arguments":{}`, "alice+files:write", ""},
		{"resources/read", `"uri":"file:///secret"`, "alice+files:write", "files:read"},
		{"resources/read", `"uri":"file:///secret"`, "alice+files:read", ""},
		{"resources/read", `"uri":"file:///private/x"`, "alice+files:read", "private"},
		{"resources/read", `"uri":"file:///private/x"`, "alice+private", ""},
		{"prompts/get", `"name":"plan"`, "alice+prompts", "prompts:plan"},
		{"prompts/get", `"name":"plan"`, "alice+prompts:plan", ""},
		{"prompts/list", ``, "alice+prompts:plan", "prompts"},
		{"prompts/list", ``, "alice+prompts", ""},
		{"tools/list", ``, "alice", ""},
	} {
		ran.Store(0)
		var m struct {
			Result json.RawMessage
			Error  *codec.Error
		}
		got := p.roundTrip(msg(i+1, tc.method, tc.token, tc.params))
		if err := json.Unmarshal([]byte(got), &m); err != nil {
			t.Fatal(err)
		}
		switch {
		case tc.missing == "" && m.Error != nil:
			t.Errorf("%s %s with %s: %s", tc.method, tc.params, tc.token, got)
		case tc.missing != "" && (m.Error == nil || m.Error.Code != codec.CodeForbidden || fmt.Sprint(m.Error.Data) != "map[scope:"+tc.missing+"]"):
			t.Errorf("%s %s with %s: %s; want -32010 naming %s", tc.method, tc.params, tc.token, got, tc.missing)
		case tc.missing != "" && ran.Load() != 0:
			t.Errorf("%s %s with %s: the handler ran", tc.method, tc.params, tc.token)
		case tc.method == "tools/list" && !strings.Contains(got, `"name":"write"`):
			t.Errorf("tools/list does not list the tool: %s", got)
		}
	}
}

// Without authentication in front, a feature that needs a scope is
// refused -32009: there is no principal to grant it.
func TestScopes_noPrincipalIsUnauthorized(t *testing.T) {
	var ran atomic.Int32
	cl := newClient(t, scopedServer(t, &ran))
	cl.initialize(mcp.Version20251125)
	if e := cl.callErr("tools/call", map[string]any{"name": "write", "arguments": map[string]any{}}); e.Code != codec.CodeUnauthorized || ran.Load() != 0 {
		t.Fatalf("got %v, ran %d", e, ran.Load())
	}
	var res struct{ Tools []struct{ Name string } }
	cl.mustCall("tools/list", nil, &res)
	if len(res.Tools) != 1 {
		t.Fatalf("tools/list: %+v", res)
	}
}
