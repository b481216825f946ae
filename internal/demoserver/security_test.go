package demoserver

import (
	"net/http"
	"testing"
)

// TestSecurity_http: the same hostile requests against every HTTP endpoint
// of the demo server (/mcp, /sse, /rpc, /ws, and -fast-rpc's /rpc on
// fasthttp), each answered as DESIGN's security model says: one
// host/origin policy everywhere (DNS rebinding), no request a page can
// send without a preflight reaches a handler, sessions by id only while
// they live, and preflights and refusals a browser can read with
// -auth-token and -cors. The helpers (security_helpers_test.go) let other
// files add rows.
func TestSecurity_http(t *testing.T) {
	runSecurityRows(t, securityPolicyRows)
}

// securityPolicyRows are the rows of the host/origin policy, the content
// types, sessions and CORS with authentication.
var securityPolicyRows = []securityRow{
	// A well-behaved client is served: the requests below differ from it
	// only in what they name.
	{name: "natural", build: naturalWith(), want: served},
	{name: "localhost Host", build: naturalWith("Host", "localhost:PORT"), want: served},
	{name: "loopback Origin", build: naturalWith("Origin", "http://localhost:5173"), want: served},
	{name: "own Origin", build: naturalWith("Origin", "http://127.0.0.1:PORT"), want: served},

	// DNS rebinding: the attacker's name in Host, with or without its
	// page's Origin.
	{name: "rebinding Host", build: naturalWith("Host", "evil.example:PORT"), want: all(forbidden("host"))},
	{name: "rebinding Host and Origin", build: naturalWith("Host", "evil.example:PORT", "Origin", "http://evil.example:PORT"), want: all(forbidden("host"))},
	{name: "rebinding Host without port", build: naturalWith("Host", "evil.example"), want: all(forbidden("host"))},
	{name: "no Host", build: naturalWith("Host", ""), want: all(clientError)},
	{name: "foreign Origin", build: naturalWith("Origin", "https://evil.example"), want: all(forbidden("origin"))},
	{name: "Origin null", build: naturalWith("Origin", "null"), want: all(forbidden("origin"))},
	{name: "Origin lookalike", build: naturalWith("Origin", "http://localhost.evil.example"), want: all(forbidden("origin"))},

	// Requests a page can send without a preflight: refused before any
	// handler runs (415 where a body is read; /ws and /sse take no such
	// POST at all).
	{name: "text/plain POST", build: simplePost("text/plain"), want: simpleRefused},
	{name: "form POST", build: simplePost("application/x-www-form-urlencoded"), want: simpleRefused},
	{name: "multipart POST", build: simplePost("multipart/form-data; boundary=x"), want: simpleRefused},

	// Streamable HTTP's own checks.
	// No Accept takes both (HTTP's rule, mcp's documented contract); one
	// that takes neither is refused.
	{name: "missing Accept", build: onlyMCP(naturalWith("Accept", "")), want: map[string]expect{epMCP: status(http.StatusOK)}},
	{name: "unacceptable Accept", build: onlyMCP(naturalWith("Accept", "text/html")), want: map[string]expect{epMCP: status(http.StatusNotAcceptable, -32600)}},
	{name: "bad MCP-Protocol-Version", build: withSession(false, "MCP-Protocol-Version", "1999-01-01"),
		want: map[string]expect{epMCP: status(http.StatusBadRequest, -32600)}},
	{name: "unknown session", build: unknownSession, want: map[string]expect{epMCP: status(http.StatusNotFound, -32600), epSSE: status(http.StatusNotFound)}},
	{name: "deleted session", build: withSession(true), want: map[string]expect{epMCP: status(http.StatusNotFound, -32600)}},

	// -auth-token with -cors: a preflight, which never carries the token,
	// is answered with CORS headers on the CORS endpoints; the token's
	// refusal carries them and exposes WWW-Authenticate.
	{name: "preflight without token", server: srvAuthCORS, build: preflightOf(""), want: preflightAnswers},
	{name: "preflight with token", server: srvAuthCORS, build: preflightOf("Bearer " + demoToken), want: preflightAnswers},
	{name: "no token from the CORS origin", server: srvAuthCORS, build: naturalWith("Origin", corsOrigin), want: map[string]expect{
		epMCP: and(status(http.StatusUnauthorized, -32009), corsReadable, header("WWW-Authenticate", "Bearer")),
		epSSE: and(status(http.StatusUnauthorized, -32009), corsReadable, header("WWW-Authenticate", "Bearer")),
	}},
	{name: "token from the CORS origin", server: srvAuthCORS, build: naturalWith("Origin", corsOrigin, "Authorization", "Bearer "+demoToken),
		want: map[string]expect{epMCP: and(status(http.StatusOK), corsReadable), epSSE: and(status(http.StatusOK), corsReadable)}},
	{name: "no token from loopback", server: srvAuthCORS, build: naturalWith(), want: map[string]expect{
		epMCP: status(http.StatusUnauthorized, -32009), epSSE: status(http.StatusUnauthorized, -32009),
		epWS: status(http.StatusUnauthorized, -32009), epRPC: status(http.StatusUnauthorized, -32009),
		epFastRPC: status(http.StatusUnauthorized, -32009),
	}},
}

// corsReadable: an answer a page of corsOrigin may read, with the headers
// it must act on exposed.
var corsReadable = and(header("Access-Control-Allow-Origin", corsOrigin),
	header("Access-Control-Expose-Headers", "WWW-Authenticate", "Mcp-Session-Id", "Retry-After"))

// preflightAnswers: the CORS endpoints answer 204 with what the page may
// send; the others have no CORS (405 for the JSON-RPC POST handlers; the
// WebSocket's origin is not the policy's: 403).
var preflightAnswers = map[string]expect{
	epMCP:     and(status(http.StatusNoContent), header("Access-Control-Allow-Origin", corsOrigin), header("Access-Control-Allow-Methods", "POST"), header("Access-Control-Allow-Headers", "Authorization")),
	epSSE:     and(status(http.StatusNoContent), header("Access-Control-Allow-Origin", corsOrigin), header("Access-Control-Allow-Methods", "POST")),
	epRPC:     and(forbidden("origin"), header("Access-Control-Allow-Origin", "")),
	epFastRPC: and(forbidden("origin"), header("Access-Control-Allow-Origin", "")),
	epWS:      and(forbidden("origin"), header("Access-Control-Allow-Origin", "")),
}

// simpleRefused: what each endpoint answers a POST a page can send without
// a preflight.
var simpleRefused = map[string]expect{
	epMCP: status(http.StatusUnsupportedMediaType), epRPC: status(http.StatusUnsupportedMediaType),
	epFastRPC: status(http.StatusUnsupportedMediaType), epSSE: clientError, epWS: clientError,
}

// simplePost POSTs a call with a content type a form can send.
func simplePost(ct string) func(*testing.T, *securityServer, string) (rawRequest, bool) {
	return func(_ *testing.T, s *securityServer, ep string) (rawRequest, bool) {
		r := natural(s, ep).with("Content-Type", ct, "Connection", "", "Upgrade", "")
		r.method, r.body = http.MethodPost, secCall
		if ep == epMCP {
			r.body = secInit
		}
		return r, true
	}
}

// onlyMCP restricts a build to /mcp.
func onlyMCP(b func(*testing.T, *securityServer, string) (rawRequest, bool)) func(*testing.T, *securityServer, string) (rawRequest, bool) {
	return func(t *testing.T, s *securityServer, ep string) (rawRequest, bool) {
		if ep != epMCP {
			return rawRequest{}, false
		}
		return b(t, s, ep)
	}
}

// unknownSession names a session that never was: on /mcp in
// Mcp-Session-Id, on /sse in the POST's sessionId.
func unknownSession(_ *testing.T, s *securityServer, ep string) (rawRequest, bool) {
	const id = "0123456789abcdef0123456789abcdef"
	r := natural(s, ep)
	switch ep {
	case epMCP:
		r.body = `{"jsonrpc":"2.0","id":2,"method":"ping"}`
		return r.with("Mcp-Session-Id", id), true
	case epSSE:
		r.method, r.target, r.body = http.MethodPost, "/sse?sessionId="+id, `{"jsonrpc":"2.0","id":2,"method":"ping"}`
		return r.with("Content-Type", "application/json", "Accept", ""), true
	}
	return rawRequest{}, false
}

// withSession opens an MCP session on /mcp (and ends it with DELETE when
// deleted), then sends a ping in it with header lines kv.
func withSession(deleted bool, kv ...string) func(*testing.T, *securityServer, string) (rawRequest, bool) {
	return func(t *testing.T, s *securityServer, ep string) (rawRequest, bool) {
		if ep != epMCP {
			return rawRequest{}, false
		}
		a := sendRaw(t, s.addr(ep), natural(s, ep))
		id := a.Header.Get("Mcp-Session-Id")
		if a.Status != http.StatusOK || id == "" {
			t.Fatalf("initialize: %d, session %q", a.Status, id)
		}
		if deleted {
			del := natural(s, ep).with("Mcp-Session-Id", id, "Content-Type", "")
			del.method, del.body = http.MethodDelete, ""
			if a := sendRaw(t, s.addr(ep), del); a.Status != http.StatusOK && a.Status != http.StatusNoContent {
				t.Fatalf("DELETE: %d %s", a.Status, a.Body)
			}
		}
		r := natural(s, ep).with(append([]string{"Mcp-Session-Id", id}, kv...)...)
		r.body = `{"jsonrpc":"2.0","id":2,"method":"ping"}`
		return r, true
	}
}

// preflightOf is a browser's preflight of a POST from corsOrigin, with
// auth as its Authorization ("" for none; browsers send none).
func preflightOf(auth string) func(*testing.T, *securityServer, string) (rawRequest, bool) {
	return func(_ *testing.T, s *securityServer, ep string) (rawRequest, bool) {
		r := rawRequest{method: http.MethodOptions, target: path(ep), header: []string{"Host", s.addr(ep)}}
		r = r.with("Origin", corsOrigin, "Access-Control-Request-Method", "POST",
			"Access-Control-Request-Headers", "authorization,content-type,mcp-protocol-version", "Authorization", auth)
		return r, true
	}
}
