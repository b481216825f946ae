package demoserver

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// -fast-rpc's /mcp is -listen's /mcp on fasthttp: the same handler, so
// the same token check (its Middleware) and the same sessions — one
// started on net/http is served on fasthttp.
func TestDemoserver_fastMCPServesTheSameEndpoint(t *testing.T) {
	_, found, logs := startLogging(t, build(t), []string{"addr", "fastmcp"},
		"-listen", "http://127.0.0.1:0", "-fast-rpc", "127.0.0.1:0", "-auth-token", demoToken)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("demoserver's stderr:\n%s", logs)
		}
	})
	netMCP, fastMCP := found["addr"]+"/mcp", found["fastmcp"]
	const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	if resp, body := mcpPost(t, fastMCP, "", "", initialize); resp.StatusCode != http.StatusUnauthorized ||
		resp.Header.Get("WWW-Authenticate") != "Bearer" || !strings.Contains(body, `"code":-32009`) {
		t.Fatalf("fasthttp /mcp without the token: %d %q %s", resp.StatusCode, resp.Header.Get("WWW-Authenticate"), body)
	}
	bearer := "Bearer " + demoToken
	resp, body := mcpPost(t, netMCP, "", bearer, initialize)
	id := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || id == "" {
		t.Fatalf("initialize on net/http: %d %s", resp.StatusCode, body)
	}
	if resp, body := mcpPost(t, fastMCP, id, bearer, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("initialized on fasthttp: %d %s", resp.StatusCode, body)
	}
	resp, body = mcpPost(t, fastMCP, id, bearer, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"message":"shared"}}}`)
	if want := `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"shared"}]}}`; resp.StatusCode != http.StatusOK ||
		resp.Header.Get("Content-Type") != "application/json" || body != want {
		t.Fatalf("tools/call on fasthttp in net/http's session: %d %q %s, want %s", resp.StatusCode, resp.Header.Get("Content-Type"), body, want)
	}
	if resp, _ := mcpPost(t, fastMCP, "NOSUCHSESSION", bearer, `{"jsonrpc":"2.0","id":3,"method":"ping"}`); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("an unknown session on fasthttp: %d", resp.StatusCode)
	}
}

// mcpPost POSTs body to the MCP endpoint url in session ("": none) with
// auth as its Authorization header ("": none), and returns the response
// and its body, read whole.
func mcpPost(t *testing.T, url, session, auth, body string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(testCtx(t), http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, string(b)
}
