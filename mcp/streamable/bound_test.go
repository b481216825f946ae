package streamable_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/mcp/streamable"
	"github.com/mcpwire/mcpwire/oauth"
)

// Tokens of the tests: "<subject>" or "<subject>+<scope>…" (scopes after
// '+', comma-separated), "expired" for one the verifier refuses.
var testVerifier = oauth.VerifierFunc(func(_ context.Context, tok string) (*oauth.Principal, error) {
	if tok == "expired" {
		return nil, oauth.ErrTokenExpired
	}
	sub, scopes, _ := strings.Cut(tok, "+")
	p := &oauth.Principal{Issuer: "https://as.example", Subject: sub}
	if scopes != "" {
		p.Scopes = strings.Split(scopes, ",")
	}
	return p, nil
})

const callEcho = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"}}}`

// A session answers only the principal that opened it: another subject's
// valid token is answered as for an unknown session (404) on POST, GET and
// DELETE, and ends nothing; an expired token of the owner is refused
// (401) and ends nothing either: the owner's next token is served. An
// instance re-creating the session from the store checks its owner too.
func TestHTTP_sessionIsBoundToItsPrincipal(t *testing.T) {
	store := streamable.NewMemorySessionStore()
	opts := &streamable.Options{SessionStore: store, Middleware: oauth.RequireBearer(testVerifier, nil)}
	ts, _ := serveHTTP(t, echoServer(t), opts)
	other, _ := serveHTTP(t, echoServer(t), opts) // another instance sharing the store

	alice := newRawHTTP(t, ts.URL)
	openAs(t, alice, "alice")

	as := func(url, token string) *rawHTTP {
		p := newRawHTTP(t, url)
		p.session = alice.session
		p.do(http.MethodPost, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, "Authorization", "Bearer "+token).Body.Close()
		return p
	}
	for _, tc := range []struct {
		name, url, token, method, body string
		status                         int
	}{
		{"bob POSTs", ts.URL, "bob", http.MethodPost, callEcho, http.StatusNotFound},
		{"bob GETs", ts.URL, "bob", http.MethodGet, "", http.StatusNotFound},
		{"bob DELETEs", ts.URL, "bob", http.MethodDelete, "", http.StatusNotFound},
		{"bob on another instance", other.URL, "bob", http.MethodPost, callEcho, http.StatusNotFound},
		{"alice's expired token", ts.URL, "expired", http.MethodPost, callEcho, http.StatusUnauthorized},
		{"no token", ts.URL, "", http.MethodPost, callEcho, http.StatusUnauthorized},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newRawHTTP(t, tc.url)
			p.session = alice.session
			hdr := []string{"Authorization", "Bearer " + tc.token}
			if tc.token == "" {
				hdr = nil
			}
			resp := p.do(tc.method, tc.body, hdr...)
			if resp.StatusCode != tc.status {
				t.Fatalf("%d, want %d", resp.StatusCode, tc.status)
			}
			e := errorBody(t, resp)
			if tc.status == http.StatusNotFound && (e.Code != codec.CodeInvalidRequest || !strings.Contains(e.Message, "no such session")) {
				t.Fatalf("answered %v, not as an unknown session", e)
			}
		})
	}
	// The session lives on: alice, with another token, is served here and
	// by the other instance.
	for _, url := range []string{ts.URL, other.URL} {
		p := as(url, "alice+any")
		resp := p.post(callEcho, "Authorization", "Bearer alice+any")
		if evs := readEvents(t, resp); resp.StatusCode != http.StatusOK || len(evs) != 1 || !strings.Contains(evs[0].data, `"text":"hi"`) {
			t.Fatalf("%s: alice's call: %d %+v", url, resp.StatusCode, evs)
		}
	}
}

// An HTTP+SSE session answers only the principal whose GET opened it.
func TestSSEHandler_sessionIsBoundToItsPrincipal(t *testing.T) {
	h := streamable.NewSSEHandler(echoServer(t), &streamable.Options{Middleware: oauth.RequireBearer(testVerifier, nil)})
	ts := httptest.NewServer(h)
	defer ts.Close()
	defer h.Close()
	get := newRawHTTP(t, ts.URL).do(http.MethodGet, "", "Authorization", "Bearer alice")
	if get.StatusCode != http.StatusOK {
		t.Fatalf("GET: %d", get.StatusCode)
	}
	ep := nextEvent(t, streamable.NewSSEReader(get.Body, 1<<20))
	post := newRawHTTP(t, ts.URL+ep.data)
	ping := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	if resp := post.post(ping, "Authorization", "Bearer bob"); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("bob's POST: %d, want 404", resp.StatusCode)
	} else if e := errorBody(t, resp); e.Code != codec.CodeInvalidRequest {
		t.Fatalf("bob's POST answered %v", e)
	}
	if resp := post.post(ping, "Authorization", "Bearer alice+more"); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("alice's POST: %d, want 202", resp.StatusCode)
	}
}

// A tool's scopes are checked before its handler runs: over HTTP a token
// without one is answered 403 with the step-up challenge naming the
// missing scope, and -32010 whose data names it; tools/list still lists
// the tool; a token with the scope is served.
func TestHTTP_missingScopeIsRefused403(t *testing.T) {
	srv := mcp.NewServer(nil, &mcp.ServerOptions{MethodScopes: map[string][]string{"prompts/list": {"prompts"}}})
	var ran atomic.Int32
	must(t, srv.AddTool(&mcp.Tool{Name: "write", Scopes: []string{"files:write"}}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		ran.Add(1)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "written"}}}, nil
	}))
	ts, _ := serveHTTP(t, srv, &streamable.Options{
		Middleware:          oauth.RequireBearer(testVerifier, nil),
		ResourceMetadataURL: "https://mcp.example/.well-known/oauth-protected-resource/mcp",
	})
	callWrite := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"write","arguments":{}}}`
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(version, func(t *testing.T) {
			p := newRawHTTP(t, ts.URL)
			body, extra := callWrite, []string(nil)
			if version == "2025-11-25" {
				openAs(t, p, "alice")
			} else {
				extra = headers26("tools/call", "write")
				body = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"write","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"raw","version":"0"},"io.modelcontextprotocol/clientCapabilities":{}}}}`
			}
			resp := p.post(body, append(extra, "Authorization", "Bearer alice+files:read")...)
			if resp.StatusCode != http.StatusForbidden {
				t.Fatalf("without the scope: %d, want 403", resp.StatusCode)
			}
			ch := resp.Header.Get("WWW-Authenticate")
			for _, want := range []string{`Bearer `, `error="insufficient_scope"`, `scope="files:write"`, `resource_metadata="https://mcp.example/.well-known/oauth-protected-resource/mcp"`} {
				if !strings.Contains(ch, want) {
					t.Fatalf("WWW-Authenticate %q lacks %s", ch, want)
				}
			}
			if e := errorBody(t, resp); e.Code != codec.CodeForbidden || fmt.Sprint(e.Data) != "map[scope:files:write]" {
				t.Fatalf("answered %v %v", e, e.Data)
			}
			if ran.Load() != 0 {
				t.Fatal("the handler ran")
			}
			resp = p.post(body, append(extra, "Authorization", "Bearer alice+files:read,files:write")...)
			if evs := readEvents(t, resp); resp.StatusCode != http.StatusOK || len(evs) != 1 || !strings.Contains(evs[0].data, "written") {
				t.Fatalf("with the scope: %d %+v", resp.StatusCode, evs)
			}
			ran.Store(0)
		})
	}
	p := newRawHTTP(t, ts.URL)
	openAs(t, p, "alice")
	resp := p.post(`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`, "Authorization", "Bearer alice")
	if evs := readEvents(t, resp); len(evs) != 1 || !strings.Contains(evs[0].data, `"name":"write"`) || strings.Contains(evs[0].data, "files:write") {
		t.Fatalf("tools/list: %+v", evs)
	}
	resp = p.post(`{"jsonrpc":"2.0","id":4,"method":"prompts/list"}`, "Authorization", "Bearer alice")
	if resp.StatusCode != http.StatusForbidden || !strings.Contains(resp.Header.Get("WWW-Authenticate"), `scope="prompts"`) {
		t.Fatalf("prompts/list: %d %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}
	resp.Body.Close()
}

// openAs initializes a 2025-11-25 session for p with token.
func openAs(t *testing.T, p *rawHTTP, token string) {
	t.Helper()
	resp := p.post(initializeBody, "Authorization", "Bearer "+token)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("initialize: %d", resp.StatusCode)
	}
	p.session, p.version = resp.Header.Get("Mcp-Session-Id"), "2025-11-25"
	if resp := p.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, "Authorization", "Bearer "+token); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("initialized: %d", resp.StatusCode)
	}
}
