package streamable_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpwire/mcpwire/internal/testproc"
	"github.com/mcpwire/mcpwire/mcp/streamable"
)

// browserPage, served from an origin of its own, initialises a session
// with the MCP endpoint %q by fetch and calls echo, as a web client
// would: the custom headers make each POST a preflighted one. It writes
// what came of it in #out.
const browserPage = `<!doctype html><html><body><pre id="out">pending</pre><script>
(async () => {
  const out = document.getElementById('out');
  const MCP = %q;
  try {
    const h = {'Content-Type': 'application/json', 'Accept': 'application/json, text/event-stream'};
    let r = await fetch(MCP, {method: 'POST', headers: h, body: JSON.stringify({jsonrpc: '2.0', id: 1, method: 'initialize',
      params: {protocolVersion: '2025-11-25', capabilities: {}, clientInfo: {name: 'browser', version: '0'}}})});
    const sid = r.headers.get('Mcp-Session-Id');
    await r.text();
    h['Mcp-Session-Id'] = sid;
    h['MCP-Protocol-Version'] = '2025-11-25';
    await (await fetch(MCP, {method: 'POST', headers: h, body: JSON.stringify({jsonrpc: '2.0', method: 'notifications/initialized'})})).text();
    r = await fetch(MCP, {method: 'POST', headers: h, body: JSON.stringify({jsonrpc: '2.0', id: 2, method: 'tools/call',
      params: {name: 'echo', arguments: {message: 'from a browser'}}})});
    out.textContent = 'session ' + (sid ? 'readable' : 'hidden') + ': ' + (await r.text());
  } catch (e) {
    out.textContent = 'refused: ' + e;
  }
})();
</script></body></html>`

// TestCORS_inChromium has headless Chromium run browserPage from another
// origin (another port) than the MCP endpoint's: allowed by CORS, the
// page reads the session id and the tool's answer; not listed, the
// browser refuses the page the answers.
func TestCORS_inChromium(t *testing.T) {
	bin := testproc.ChromiumPath(t)
	var endpoint atomic.Pointer[string]
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, browserPage, *endpoint.Load())
	}))
	defer page.Close()
	for _, tc := range []struct {
		origins []string
		want    string
	}{
		{[]string{page.URL}, `session readable: {"jsonrpc":"2.0","id":2,"result":`}, // JSON: echo streams nothing
		{[]string{"https://app.example.com"}, `refused: TypeError: Failed to fetch`},
	} {
		ts, _ := serveHTTP(t, echoServer(t), &streamable.Options{CORS: &streamable.CORSOptions{AllowedOrigins: tc.origins}})
		endpoint.Store(&ts.URL)
		dom, console := testproc.Chromium(t, bin, page.URL, "--virtual-time-budget=10000", "--dump-dom")
		_, out, _ := strings.Cut(dom, `<pre id="out">`)
		out, _, _ = strings.Cut(out, "</pre>")
		if !strings.HasPrefix(out, tc.want) {
			t.Fatalf("CORS origins %v: the page says %q, want %q…; console:\n%s", tc.origins, out, tc.want, console)
		}
		if tc.origins[0] == page.URL && !strings.Contains(out, `"text":"from a browser"`) {
			t.Fatalf("the page read no answer: %q", out)
		}
		if tc.origins[0] == page.URL && console != "" {
			t.Fatalf("console: %s", console)
		}
	}
}
