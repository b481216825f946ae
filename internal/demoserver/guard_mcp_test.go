package demoserver

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/mcp/streamable"
	"github.com/mcpwire/mcpwire/transport"
)

// With -auth-token, the MCP HTTP endpoints (/mcp, /sse) refuse a request
// without the token with 401 before any session sees it; with it, a
// client's session works, its calls pass the token check (made at the
// HTTP layer) and meet -forbid.
func TestDemoserver_authTokenOnMCPOverHTTP(t *testing.T) {
	_, addr, logs := startListening(t, build(t), "-listen", "http://127.0.0.1:0", "-auth-token", demoToken, "-forbid", "sum")
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("demoserver's stderr:\n%s", logs)
		}
	})
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	for _, tc := range []struct {
		name, method, path, auth string
		wwwAuth                  string
	}{
		{"POST /mcp without", "POST", "/mcp", "", "Bearer"},
		{"POST /mcp with a wrong token", "POST", "/mcp", "Bearer nope", `Bearer error="invalid_token"`},
		{"GET /sse without", "GET", "/sse", "", "Bearer"},
	} {
		req, err := http.NewRequestWithContext(testCtx(t), tc.method, addr+tc.path, strings.NewReader(initialize))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if tc.auth != "" {
			req.Header.Set("Authorization", tc.auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var msg struct {
			ID    json.RawMessage    `json:"id"`
			Error struct{ Code int } `json:"error"`
		}
		json.Unmarshal(body, &msg)
		if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("WWW-Authenticate") != tc.wwwAuth ||
			msg.Error.Code != -32009 || string(msg.ID) != "null" {
			t.Errorf("%s: %d, WWW-Authenticate %q, body %s", tc.name, resp.StatusCode, resp.Header.Get("WWW-Authenticate"), body)
		}
	}

	c, _ := newClient(mcp.LatestVersion)
	ctx := testCtx(t)
	if _, err := streamable.Connect(ctx, c, addr+"/mcp", nil); err == nil {
		t.Fatal("a client without the token connected")
	}
	cs, err := streamable.Connect(ctx, c, addr+"/mcp", &streamable.ClientOptions{HTTPClientOptions: transport.HTTPClientOptions{Header: http.Header{"Authorization": {"Bearer " + demoToken}}}})
	if err != nil {
		t.Fatalf("connect with the token: %v", err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, "echo", map[string]any{"message": "over /mcp"})
	if err != nil || textOf(t, res) != "over /mcp" {
		t.Fatalf("echo: %v", err)
	}
	var e *codec.Error
	if _, err := cs.Conn().CallRaw(ctx, "sum", []int{1, 2}); !errors.As(err, &e) || e.Code != codec.CodeForbidden {
		t.Errorf("sum under -forbid: %v", err)
	}
}
