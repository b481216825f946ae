package streamable_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/mcp/streamable"
)

// A session of 2026-07-28 over Streamable HTTP: each POST carries the
// version of its _meta, Mcp-Method, Mcp-Name and the Mcp-Param headers
// of the tool's x-mcp-header annotations (base64 where the value is not
// plain visible ASCII), and no session id although the server gives one;
// a tool with an invalid annotation is left out of the listing.
func TestClient_statelessHeaders(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]http.Header{} // method → headers of its last POST
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			t.Errorf("%s: a stateless session sends POSTs alone", r.Method)
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		body, _ := io.ReadAll(r.Body)
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		_ = json.Unmarshal(body, &req)
		mu.Lock()
		seen[req.Method] = r.Header.Clone()
		mu.Unlock()
		result := `{}`
		switch req.Method {
		case "server/discover":
			result = `{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{},"resources":{}}}`
		case "tools/list":
			result = `{"resultType":"complete","ttlMs":0,"cacheScope":"private","tools":[
				{"name":"sql","inputSchema":{"type":"object","properties":{
					"region":{"type":"string","x-mcp-header":"Region"},
					"n":{"type":"integer","x-mcp-header":"N"},
					"on":{"type":"boolean","x-mcp-header":"On"},
					"greet":{"type":"string","x-mcp-header":"Greeting"},
					"pad":{"type":"string","x-mcp-header":"Pad"},
					"sentinel":{"type":"string","x-mcp-header":"Val"},
					"gone":{"type":"string","x-mcp-header":"Gone"},
					"query":{"type":"string"}}}},
				{"name":"bad","inputSchema":{"type":"object","properties":{"v":{"type":"number","x-mcp-header":"V"}}}}]}`
		case "tools/call":
			result = `{"resultType":"complete","content":[]}`
		case "resources/read":
			result = `{"resultType":"complete","contents":[]}`
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Mcp-Session-Id", "not-for-stateless")
		io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"result":`+result+`}`)
	}))
	defer ts.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, &mcp.ClientOptions{ProtocolVersion: mcp.Version20260728})
	cs, err := streamable.Connect(ctx, c, ts.URL, &streamable.ClientOptions{DisableSSEFallback: true})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(tools.Tools) != 1 || tools.Tools[0].Name != "sql" {
		t.Fatalf("listed %d tools, want sql alone", len(tools.Tools))
	}
	args := map[string]any{"region": "us-west1", "n": 42, "on": false, "greet": "Hello, 世界", "pad": " padded ",
		"sentinel": "=?base64?literal?=", "gone": nil, "query": "SELECT 1"}
	if _, err := cs.CallTool(ctx, "sql", args); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.ReadResource(ctx, "file:///a b.txt"); err != nil {
		t.Fatal(err)
	}
	// The client has no tasks extension (GetTask fails at once under
	// 2026-07-28): the transport's header for its methods is checked on
	// a request made by hand, as an application of the extension would.
	if err := cs.Conn().Call(ctx, "tasks/get", json.RawMessage(`{"taskId":"task-1","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}`), nil); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	for method, want := range map[string]map[string]string{
		"server/discover": {"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "server/discover", "Mcp-Name": ""},
		"tools/list":      {"Mcp-Method": "tools/list", "Mcp-Session-Id": ""},
		"tools/call": {"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "sql",
			"Mcp-Param-Region": "us-west1", "Mcp-Param-N": "42", "Mcp-Param-On": "false",
			"Mcp-Param-Greeting": "=?base64?SGVsbG8sIOS4lueVjA==?=", "Mcp-Param-Pad": "=?base64?IHBhZGRlZCA=?=",
			"Mcp-Param-Val": "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=", "Mcp-Param-Gone": "", "Mcp-Param-Query": "",
			"Mcp-Session-Id": ""},
		"resources/read": {"Mcp-Method": "resources/read", "Mcp-Name": "file:///a b.txt"},
		"tasks/get":      {"Mcp-Method": "tasks/get", "Mcp-Name": "task-1"}, // the tasks extension's routing header
	} {
		h := seen[method]
		if h == nil {
			t.Errorf("no %s posted", method)
			continue
		}
		for k, v := range want {
			if got := h.Get(k); got != v {
				t.Errorf("%s: %s: %q, want %q", method, k, got, v)
			}
		}
	}
	if n := len(seen); n != 5 || strings.Contains(strings.Join(seen["tools/call"].Values("Mcp-Param-Query"), ""), "SELECT") {
		t.Errorf("posted %d methods", n)
	}
}
