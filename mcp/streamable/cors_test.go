package streamable_test

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/mcp/streamable"
)

const (
	appOrigin  = "https://app.example.com"
	evilOrigin = "https://evil.example.com"
	initBody   = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"browser","version":"0"}}}`
)

// wantHeaders checks response headers: a value "" means absent.
func wantHeaders(t *testing.T, resp *http.Response, kv ...string) {
	t.Helper()
	for i := 0; i+1 < len(kv); i += 2 {
		if got := strings.Join(resp.Header.Values(kv[i]), ", "); got != kv[i+1] {
			t.Errorf("%s: %q, want %q", kv[i], got, kv[i+1])
		}
	}
}

func preflight(p *rawHTTP, origin, method string, hdr ...string) *http.Response {
	p.t.Helper()
	resp := p.do(http.MethodOptions, "", append([]string{"Origin", origin, "Access-Control-Request-Method", method,
		"Access-Control-Request-Headers", "content-type,mcp-session-id,mcp-protocol-version"}, hdr...)...)
	resp.Body.Close()
	return resp
}

func TestCORS_streamableHTTP(t *testing.T) {
	onBothServers(t, func(t *testing.T, serveHTTP serveFunc) {
		ts, _ := serveHTTP(t, echoServer(t), &streamable.Options{CORS: &streamable.CORSOptions{
			AllowedOrigins: []string{appOrigin}, AllowCredentials: true, MaxAge: 2 * time.Hour, AllowedHeaders: []string{"X-Api-Key"},
		}})
		p := newRawHTTP(t, ts.URL)

		resp := preflight(p, appOrigin, "POST", "Access-Control-Request-Private-Network", "true")
		if resp.StatusCode != http.StatusNoContent {
			t.Fatalf("preflight: %d", resp.StatusCode)
		}
		wantHeaders(t, resp,
			"Access-Control-Allow-Origin", appOrigin,
			"Access-Control-Allow-Credentials", "true",
			"Access-Control-Allow-Methods", "GET, POST, DELETE",
			"Access-Control-Allow-Headers", "Content-Type, Authorization, Mcp-Session-Id, MCP-Protocol-Version, Last-Event-ID, X-Api-Key",
			"Access-Control-Max-Age", "7200",
			"Access-Control-Allow-Private-Network", "true",
			"Vary", "Origin, Access-Control-Request-Method, Access-Control-Request-Headers")
		if resp := preflight(p, appOrigin, "PUT"); resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Access-Control-Allow-Methods") != "" {
			t.Fatalf("preflight of PUT: %d %v", resp.StatusCode, resp.Header)
		}

		// The page's own requests: allowed by the guard (the server is on
		// loopback, the origin is not), and readable by its script.
		resp = p.post(initBody, "Origin", appOrigin)
		readEvents(t, resp)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("POST from a CORS origin: %d", resp.StatusCode)
		}
		wantHeaders(t, resp,
			"Access-Control-Allow-Origin", appOrigin,
			"Access-Control-Allow-Credentials", "true",
			"Access-Control-Expose-Headers", "Mcp-Session-Id, MCP-Protocol-Version, WWW-Authenticate, Retry-After",
			"Vary", "Origin")
		p.session, p.version = resp.Header.Get("Mcp-Session-Id"), "2025-11-25"
		for _, m := range []string{http.MethodGet, http.MethodDelete} {
			resp := p.do(m, "", "Origin", appOrigin)
			resp.Body.Close() // the GET's stream ends with the DELETE's session
			if resp.StatusCode/100 != 2 || resp.Header.Get("Access-Control-Allow-Origin") != appOrigin {
				t.Fatalf("%s: %d %v", m, resp.StatusCode, resp.Header)
			}
		}

		// Any other origin: refused, preflight or not, with no CORS header.
		p.session = ""
		for _, resp := range []*http.Response{preflight(p, evilOrigin, "POST"), p.post(initBody, "Origin", evilOrigin)} {
			if resp.StatusCode != http.StatusForbidden {
				t.Fatalf("%s from %s: %d", resp.Request.Method, evilOrigin, resp.StatusCode)
			}
			wantHeaders(t, resp, "Access-Control-Allow-Origin", "", "Vary", "Origin")
			resp.Body.Close()
		}
		// A loopback origin passes the guard but is no CORS origin: its page
		// may not call.
		if resp := preflight(p, "http://localhost:3000", "POST"); resp.StatusCode != http.StatusForbidden {
			t.Fatalf("preflight from an unlisted loopback origin: %d", resp.StatusCode)
		}
		// OPTIONS that is no preflight says what the endpoint allows.
		if resp := p.do(http.MethodOptions, ""); resp.StatusCode != http.StatusNoContent || resp.Header.Get("Allow") != "GET, POST, DELETE, OPTIONS" {
			t.Fatalf("OPTIONS: %d %v", resp.StatusCode, resp.Header)
		}
	})
}

func TestCORS_anyOriginIsNotCredentialed(t *testing.T) {
	ts, _ := serveHTTP(t, echoServer(t), &streamable.Options{CORS: &streamable.CORSOptions{AllowedOrigins: []string{"*"}, AllowCredentials: true}})
	p := newRawHTTP(t, ts.URL)
	for _, resp := range []*http.Response{preflight(p, evilOrigin, "POST"), p.post(initBody, "Origin", evilOrigin)} {
		if resp.StatusCode/100 != 2 {
			t.Fatalf("%s: %d", resp.Request.Method, resp.StatusCode)
		}
		wantHeaders(t, resp, "Access-Control-Allow-Origin", "*", "Access-Control-Allow-Credentials", "")
		resp.Body.Close()
	}
	// The Host check against DNS rebinding still holds.
	if resp := p.post(initBody, "Origin", evilOrigin, "Host", "evil.example.com"); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("a foreign Host: %d", resp.StatusCode)
	}
}

func TestCORS_offByDefault(t *testing.T) {
	ts, _ := serveHTTP(t, echoServer(t), nil)
	p := newRawHTTP(t, ts.URL)
	if resp := preflight(p, "http://localhost:3000", "POST"); resp.StatusCode != http.StatusMethodNotAllowed {
		t.Fatalf("preflight without CORS: %d", resp.StatusCode)
	}
	resp := p.post(initBody, "Origin", "http://localhost:3000")
	readEvents(t, resp)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST from a loopback origin: %d", resp.StatusCode)
	}
	wantHeaders(t, resp, "Access-Control-Allow-Origin", "", "Access-Control-Expose-Headers", "", "Vary", "")
}

func TestCORS_legacySSE(t *testing.T) {
	h := streamable.NewSSEHandler(echoServer(t), &streamable.Options{CORS: &streamable.CORSOptions{AllowedOrigins: []string{appOrigin}}})
	ts := httptest.NewServer(h)
	defer ts.Close()
	defer h.Close()
	p := newRawHTTP(t, ts.URL)
	resp := preflight(p, appOrigin, "POST")
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("preflight: %d", resp.StatusCode)
	}
	wantHeaders(t, resp, "Access-Control-Allow-Origin", appOrigin, "Access-Control-Allow-Methods", "GET, POST", "Access-Control-Allow-Credentials", "")
	if resp := preflight(p, appOrigin, "DELETE"); resp.StatusCode != http.StatusMethodNotAllowed {
		t.Fatalf("preflight of DELETE: %d", resp.StatusCode)
	}
	get := p.do(http.MethodGet, "", "Origin", appOrigin)
	defer get.Body.Close()
	if get.StatusCode != http.StatusOK || get.Header.Get("Access-Control-Allow-Origin") != appOrigin ||
		!slices.Contains(get.Header.Values("Vary"), "Origin") {
		t.Fatalf("GET: %d %v", get.StatusCode, get.Header)
	}
	if resp := p.do(http.MethodGet, "", "Origin", evilOrigin); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("GET from %s: %d", evilOrigin, resp.StatusCode)
	}
}

// TestCORS_authenticationInside: authentication given as
// Options.Middleware runs inside CORS, on both endpoints: a preflight,
// which carries no credentials, is answered 204; a request without the
// token is refused 401 with the CORS headers a page needs to read the
// refusal and its WWW-Authenticate; one with the token is served.
func TestCORS_authenticationInside(t *testing.T) {
	onBothServers(t, func(t *testing.T, serveHTTP serveFunc) {
		auth := func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Header.Get("Authorization") != "Bearer s3cret" {
					w.Header().Set("WWW-Authenticate", "Bearer")
					http.Error(w, `{"jsonrpc":"2.0","id":null,"error":{"code":-32009,"message":"Unauthorized"}}`, http.StatusUnauthorized)
					return
				}
				next.ServeHTTP(w, r)
			})
		}
		opts := &streamable.Options{CORS: &streamable.CORSOptions{AllowedOrigins: []string{appOrigin}}, Middleware: auth}
		mcpTS, _ := serveHTTP(t, echoServer(t), opts)
		legacy := streamable.NewSSEHandler(echoServer(t), opts)
		ls := httptest.NewServer(legacy)
		t.Cleanup(func() { legacy.Close(); ls.Close() })
		for name, url := range map[string]string{"mcp": mcpTS.URL, "sse": ls.URL} {
			t.Run(name, func(t *testing.T) {
				p := newRawHTTP(t, url)
				resp := preflight(p, appOrigin, "POST")
				if resp.StatusCode != http.StatusNoContent {
					t.Fatalf("preflight: %d", resp.StatusCode)
				}
				wantHeaders(t, resp, "Access-Control-Allow-Origin", appOrigin)
				resp = p.do(http.MethodPost, initBody, "Origin", appOrigin, "Content-Type", "application/json", "Accept", "application/json, text/event-stream")
				resp.Body.Close()
				if resp.StatusCode != http.StatusUnauthorized {
					t.Fatalf("no token: %d", resp.StatusCode)
				}
				wantHeaders(t, resp, "Access-Control-Allow-Origin", appOrigin,
					"Access-Control-Expose-Headers", "Mcp-Session-Id, MCP-Protocol-Version, WWW-Authenticate, Retry-After",
					"WWW-Authenticate", "Bearer")
			})
		}
		// With the token, the page is served.
		p := newRawHTTP(t, mcpTS.URL)
		resp := p.do(http.MethodPost, initBody, "Origin", appOrigin, "Authorization", "Bearer s3cret", "Content-Type", "application/json", "Accept", "application/json, text/event-stream")
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("with the token: %d", resp.StatusCode)
		}
	})
}
