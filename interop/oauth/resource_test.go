package oauthinterop_test

import (
	"bytes"
	"context"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/mcp/streamable"
	"github.com/mcpwire/mcpwire/oauth"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"
)

// env is a resource server protected by package oauth, in front of the
// provider of provider_test.go.
type env struct {
	t                   *testing.T
	p                   *provider
	issuer, otherIssuer string
	resource, mdURL     string
	rs                  *httptest.Server
	skew                atomic.Int64 // added to the verifier's clock

	logMu sync.Mutex
	logs  bytes.Buffer
	seen  []string // every token and secret used: none may reach the logs
}

func (e *env) Write(b []byte) (int, error) {
	e.logMu.Lock()
	defer e.logMu.Unlock()
	return e.logs.Write(b)
}

// newEnv starts the provider and a resource server at /mcp whose tokens
// are checked by the verifier kind ("jwt" or "introspection") requires;
// /mcp needs the scope "mcp", /mcp/admin "admin" too (checked by its
// handler, RequireScopes, refused with Bearer.Refuse).
func newEnv(t *testing.T, kind string) *env {
	t.Helper()
	e := &env{t: t, seen: []string{rsSecret, appSecret}}
	e.rs = httptest.NewUnstartedServer(nil)
	e.resource = "http://" + e.rs.Listener.Addr().String() + "/mcp"
	e.p, e.issuer, e.otherIssuer = startProvider(t, e.resource)
	logger := slog.New(slog.NewJSONHandler(e, &slog.HandlerOptions{Level: slog.LevelDebug}))
	now := func() time.Time { return time.Now().Add(time.Duration(e.skew.Load())) }

	var v oauth.TokenVerifier
	switch kind {
	case "jwt":
		jv, err := oauth.NewJWTVerifier(t.Context(), &oauth.JWTOptions{
			Issuer: e.issuer, Audience: e.resource, Logger: logger, Now: now,
		})
		if err != nil {
			t.Fatalf("NewJWTVerifier: %v", err)
		}
		t.Cleanup(func() { jv.Close() })
		v = jv
	case "introspection":
		iv, err := oauth.NewIntrospectionVerifier(t.Context(), &oauth.IntrospectionOptions{
			Issuer: e.issuer, Audience: e.resource, ClientID: rsClient, ClientSecret: rsSecret, Logger: logger, Now: now,
		})
		if err != nil {
			t.Fatalf("NewIntrospectionVerifier: %v", err)
		}
		v = iv
	}
	var err error
	if e.mdURL, err = oauth.MetadataURL(e.resource); err != nil {
		t.Fatal(err)
	}
	mdPath, _ := oauth.MetadataPath(e.resource)
	md, err := oauth.MetadataHandler(oauth.ResourceMetadata{
		Resource: e.resource, AuthorizationServers: []string{e.issuer}, ScopesSupported: []string{"mcp", "admin"},
	})
	if err != nil {
		t.Fatal(err)
	}
	b := oauth.NewBearer(v, &oauth.BearerOptions{ResourceMetadataURL: e.mdURL, Scopes: []string{"mcp"}, Logger: logger})
	mux := http.NewServeMux()
	mux.Handle(mdPath, md)
	mux.Handle("/mcp", b.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, _ := oauth.FromContext(r.Context())
		fmt.Fprintf(w, "%s %s", p.Subject, strings.Join(p.Scopes, ","))
	})))
	mux.Handle("/mcp/admin", b.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := oauth.RequireScopes(r.Context(), "admin"); err != nil {
			b.Refuse(w, err)
			return
		}
		io.WriteString(w, "admin")
	})))
	// An MCP server's Streamable HTTP endpoint behind the same Bearer:
	// its sessions are bound to their subjects.
	srv := mcp.NewServer(nil, nil)
	if err := srv.AddTool(&mcp.Tool{Name: "whoami"}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "served"}}}, nil
	}); err != nil {
		t.Fatal(err)
	}
	sh := streamable.NewHandler(srv, &streamable.Options{Middleware: b.Wrap, ResourceMetadataURL: e.mdURL})
	t.Cleanup(func() { sh.Close() })
	mux.Handle("/mcp/session", sh)
	e.rs.Config.Handler = mux
	e.rs.Start()
	t.Cleanup(e.rs.Close)
	t.Cleanup(e.checkLogs)
	return e
}

// token gets an access token from issuer by the client-credentials grant,
// the token endpoint found by discovery.
func (e *env) token(issuer, client string, scopes ...string) string {
	e.t.Helper()
	md, err := oauth.Discover(e.t.Context(), nil, issuer)
	if err != nil {
		e.t.Fatalf("Discover(%s): %v", issuer, err)
	}
	cc := clientcredentials.Config{
		ClientID: client, ClientSecret: appSecret, TokenURL: md.TokenEndpoint, Scopes: scopes,
		AuthStyle: oauth2.AuthStyleInHeader,
	}
	tok, err := cc.Token(e.t.Context())
	if err != nil {
		e.t.Fatalf("token for %s from %s: %v", client, issuer, err)
	}
	e.seen = append(e.seen, tok.AccessToken)
	return tok.AccessToken
}

// call sends a request to the resource server with token (none if "").
func (e *env) call(path, token string) (status int, challenge, body string) {
	e.t.Helper()
	req, _ := http.NewRequestWithContext(e.t.Context(), "POST", e.rs.URL+path, strings.NewReader(`{}`))
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("WWW-Authenticate"), string(b)
}

// expect checks one call's status, challenge and body.
func (e *env) expect(name, path, token string, status int, challenge, body string) {
	e.t.Helper()
	gotStatus, gotChallenge, gotBody := e.call(path, token)
	if gotStatus != status || gotChallenge != challenge || gotBody != body {
		e.t.Errorf("%s: got %d\n  %s\n  %s\nwant %d\n  %s\n  %s", name, gotStatus, gotChallenge, gotBody, status, challenge, body)
	}
}

// checkLogs fails the test if a token or secret reached a log record.
func (e *env) checkLogs() {
	e.logMu.Lock()
	defer e.logMu.Unlock()
	out := e.logs.String()
	if !strings.Contains(out, "oauth: request refused") {
		e.t.Errorf("no refusal was logged:\n%s", out)
	}
	for _, s := range e.seen {
		if strings.Contains(out, s) {
			e.t.Errorf("a log record holds a token or secret:\n%s", out)
		}
		if parts := strings.Split(s, "."); len(parts) == 3 && parts[2] != "" && strings.Contains(out, parts[2]) {
			e.t.Errorf("a log record holds a token's signature:\n%s", out)
		}
	}
}

// invalid returns the challenge and body of a 401 invalid_token for reason.
func (e *env) invalid(reason string) (string, string) {
	desc := "the access token is invalid" + reason
	return `Bearer error="invalid_token", error_description="` + desc + `", scope="mcp", resource_metadata="` + e.mdURL + `"`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32009,"message":"Unauthorized: ` + desc + `"}}`
}

// insufficient returns the challenge and body of a 403 for scope.
func (e *env) insufficient(scope string) (string, string) {
	return `Bearer error="insufficient_scope", scope="` + scope + `", error_description="the access token lacks a required scope", resource_metadata="` + e.mdURL + `"`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32010,"message":"Forbidden: the access token lacks the scope ` + scope + `","data":{"scope":"` + scope + `"}}}`
}

// commonCases are the answers both verifiers give alike.
func (e *env) commonCases(good, served string) {
	e.t.Helper()
	e.expect("no token", "/mcp", "", 401,
		`Bearer scope="mcp", resource_metadata="`+e.mdURL+`"`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32009,"message":"Unauthorized: an access token is required (Authorization: Bearer …)"}}`)
	e.expect("valid", "/mcp", good, 200, "", served)
	ch, body := e.insufficient("admin")
	e.expect("step-up: a handler's scope", "/mcp/admin", good, 403, ch, body)
	e.expect("token in the query", "/mcp?access_token="+good, "", 400,
		`Bearer error="invalid_request", error_description="send the access token in the Authorization header, never in the URL", resource_metadata="`+e.mdURL+`"`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32009,"message":"Unauthorized: access tokens are accepted in the Authorization header only, never in the URL"}}`)
	// The metadata document the challenge names.
	resp, err := http.Get(e.mdURL)
	if err != nil {
		e.t.Fatal(err)
	}
	var md oauth.ResourceMetadata
	json.NewDecoder(resp.Body).Decode(&md)
	resp.Body.Close()
	if md.Resource != e.resource || len(md.AuthorizationServers) != 1 || md.AuthorizationServers[0] != e.issuer {
		e.t.Errorf("metadata at %s: %+v", e.mdURL, md)
	}
}

func TestJWT_againstARealProvider(t *testing.T) {
	e := newEnv(t, "jwt")
	good := e.token(e.issuer, jwtApp, "mcp")
	e.commonCases(good, subject+" mcp")
	e.expect("with both scopes", "/mcp/admin", e.token(e.issuer, jwtApp, "mcp", "admin"), 200, "", "admin")

	ch, body := e.insufficient("mcp")
	e.expect("missing scope", "/mcp", e.token(e.issuer, jwtApp, "openid"), 403, ch, body)

	ch, body = e.invalid(": not issued for this resource")
	e.expect("wrong audience", "/mcp", e.token(e.issuer, otherApp, "mcp"), 401, ch, body)

	ch, body = e.invalid(": wrong issuer")
	e.expect("wrong issuer (same keys)", "/mcp", e.token(e.otherIssuer, jwtApp, "mcp"), 401, ch, body)

	e.skew.Store(int64(10 * time.Minute)) // the provider's tokens live 5 minutes
	ch, body = e.invalid(": expired")
	e.expect("expired", "/mcp", good, 401, ch, body)
	e.skew.Store(0)

	// Forgeries from a real token's claims: alg none, and HS256 keyed
	// with the provider's public key (PEM, as the JWKS's key is known).
	claims := jwt.MapClaims{}
	if _, _, err := jwt.NewParser().ParseUnverified(good, claims); err != nil {
		t.Fatal(err)
	}
	kid := e.p.current().id
	none := jwt.NewWithClaims(jwt.SigningMethodNone, claims)
	none.Header["kid"] = kid
	noneTok, _ := none.SignedString(jwt.UnsafeAllowNoneSignatureType)
	der, _ := x509.MarshalPKIXPublicKey(&e.p.current().priv.PublicKey)
	hs := jwt.NewWithClaims(jwt.SigningMethodHS256, claims)
	hs.Header["kid"] = kid
	hsTok, _ := hs.SignedString(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))
	e.seen = append(e.seen, noneTok, hsTok)
	ch, body = e.invalid(": bad signature or algorithm")
	e.expect("alg none", "/mcp", noneTok, 401, ch, body)
	e.expect("HS256 with the public key", "/mcp", hsTok, 401, ch, body)

	// The provider rotates its key, withdrawing the old one: its new
	// tokens are accepted without restarting the resource server.
	e.p.Rotate(true)
	rotated := e.token(e.issuer, jwtApp, "mcp")
	if tok, _, _ := jwt.NewParser().ParseUnverified(rotated, jwt.MapClaims{}); tok.Header["kid"] == kid {
		t.Fatal("the provider did not sign with the rotated key")
	}
	e.expect("after key rotation", "/mcp", rotated, 200, "", subject+" mcp")
}

func TestIntrospection_againstARealProvider(t *testing.T) {
	e := newEnv(t, "introspection")
	// The example storage answers introspection with the subject only
	// for the openid scope.
	good := e.token(e.issuer, opaqueApp, "openid", "mcp")
	if strings.Count(good, ".") == 2 {
		t.Fatalf("the provider issued a JWT, not an opaque token")
	}
	e.commonCases(good, subject+" openid,mcp")

	ch, body := e.insufficient("mcp")
	e.expect("missing scope", "/mcp", e.token(e.issuer, opaqueApp, "openid"), 403, ch, body)

	// The other issuer encrypts its opaque tokens with another key: this
	// provider does not know them.
	ch, body = e.invalid(": not active")
	e.expect("another issuer's token", "/mcp", e.token(e.otherIssuer, opaqueApp, "openid", "mcp"), 401, ch, body)
	e.expect("made-up token", "/mcp", "not-a-token-of-this-provider", 401, ch, body)

	e.skew.Store(int64(10 * time.Minute))
	ch, body = e.invalid(": expired")
	e.expect("expired (the cached answer is not reused past exp)", "/mcp", good, 401, ch, body)
	e.skew.Store(0)
}

// mcpPost POSTs an MCP message to /mcp/session with token, in session
// ("": none).
func (e *env) mcpPost(token, session, body string) (status int, sessionID, answer string) {
	e.t.Helper()
	req, _ := http.NewRequestWithContext(e.t.Context(), "POST", e.rs.URL+"/mcp/session", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Mcp-Session-Id"), string(b)
}

// A session opened with one subject's token is refused to another
// subject's valid token (404, as an unknown session), and served with a
// new token of its own subject, after the first expired.
func TestSession_boundToItsSubjectAgainstARealProvider(t *testing.T) {
	e := newEnv(t, "jwt")
	first := e.token(e.issuer, jwtApp, "mcp")
	st, session, body := e.mcpPost(first, "", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`)
	if st != http.StatusOK || session == "" {
		t.Fatalf("initialize: %d %s", st, body)
	}
	e.mcpPost(first, session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	const call = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"whoami","arguments":{}}}`
	if st, _, body := e.mcpPost(e.token(e.issuer, secondApp, "mcp"), session, call); st != http.StatusNotFound || !strings.Contains(body, "no such session") {
		t.Fatalf("another subject's token: %d %s", st, body)
	}
	e.skew.Store(int64(10 * time.Minute)) // the first token has expired
	if st, _, body := e.mcpPost(first, session, call); st != http.StatusUnauthorized {
		t.Fatalf("the expired token: %d %s", st, body)
	}
	e.skew.Store(0)
	if st, _, body := e.mcpPost(e.token(e.issuer, jwtApp, "mcp"), session, call); st != http.StatusOK || !strings.Contains(body, "served") {
		t.Fatalf("a new token of the same subject: %d %s", st, body)
	}
}
