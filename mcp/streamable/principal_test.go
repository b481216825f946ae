package streamable_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/mcp/streamable"
	"github.com/mcpwire/mcpwire/middleware"
)

// Behind an authenticating HTTP middleware, the principal of each POST
// reaches the MCP handlers, in both eras, and a 2026-07-28 requestState
// is bound to it: the state a request of alice's got is refused when bob
// presents it, and taken when alice does.
func TestHTTP_principalReachesHandlersAndBindsRequestState(t *testing.T) {
	srv := mcp.NewServer(nil, nil)
	must(t, srv.AddTool(&mcp.Tool{Name: "who"}, func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		who, _ := middleware.PrincipalFromContext(ctx)
		s, _ := who.(string)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "who:" + s}}}, nil
	}))
	must(t, srv.AddTool(&mcp.Tool{Name: "ask"}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if _, err := req.Elicit(ctx, &mcp.ElicitParams{Message: "Sure?", RequestedSchema: map[string]any{"type": "object"}}); err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
	}))
	h := streamable.NewHandler(srv, nil)
	authn := middleware.AuthenticatorFunc(func(_ context.Context, cred string) (any, error) {
		name, ok := strings.CutPrefix(cred, "Bearer ")
		if !ok {
			return nil, middleware.ErrNoCredentials
		}
		return name, nil
	})
	ts := httptest.NewServer(middleware.HTTPAuth(authn, h))
	t.Cleanup(func() {
		h.Close()
		ts.Close()
	})
	post := func(user, session, version, body string, hd ...string) (http.Header, string) {
		t.Helper()
		req, err := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+user)
		req.Header.Set("Mcp-Protocol-Version", version)
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
		}
		for i := 0; i+1 < len(hd); i += 2 {
			req.Header.Set(hd[i], hd[i+1])
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.Header, string(b)
	}
	const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}`
	call := func(user, tool, more string) string {
		t.Helper()
		_, b := post(user, "", mcp.Version20260728, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"`+tool+`",`+meta+more+`}}`,
			"Mcp-Method", "tools/call", "Mcp-Name", tool)
		return b
	}

	if b := call("alice", "who", ""); !strings.Contains(b, `"who:alice"`) {
		t.Errorf("2026-07-28: %s", b)
	}
	hd, b := post("bob", "", mcp.LatestVersion, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
	sid := hd.Get("Mcp-Session-Id")
	if sid == "" {
		t.Fatalf("initialize: %s", b)
	}
	post("bob", sid, mcp.LatestVersion, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if _, b := post("bob", sid, mcp.LatestVersion, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"who"}}`); !strings.Contains(b, `"who:bob"`) {
		t.Errorf("2025-11-25 session: %s", b)
	}

	var first struct {
		Result struct {
			ResultType    string                     `json:"resultType"`
			RequestState  string                     `json:"requestState"`
			InputRequests map[string]json.RawMessage `json:"inputRequests"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(call("alice", "ask", "")), &first); err != nil || first.Result.ResultType != "input_required" || len(first.Result.InputRequests) != 1 {
		t.Fatalf("ask: %+v %v", first, err)
	}
	var key string
	for k := range first.Result.InputRequests {
		key = k
	}
	retry := `,"inputResponses":{"` + key + `":{"action":"accept","content":{}}},"requestState":"` + first.Result.RequestState + `"`
	var refused struct {
		Error *struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	if b := call("bob", "ask", retry); json.Unmarshal([]byte(b), &refused) != nil || refused.Error == nil || refused.Error.Code != -32602 {
		t.Errorf("alice's requestState presented by bob: %s", b)
	}
	if b := call("alice", "ask", retry); !strings.Contains(b, `"done"`) {
		t.Errorf("alice's requestState presented by alice: %s", b)
	}
}
