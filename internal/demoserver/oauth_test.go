package demoserver

import (
	"bufio"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/internal/testproc"
)

// issuer is an authorization server for the demo's tests: RFC 8414
// metadata and a key set of one P-256 key, whose tokens it signs (the
// tests against a real provider are in interop/oauth).
type issuer struct {
	t   *testing.T
	URL string
	key *ecdsa.PrivateKey
}

func newIssuer(t *testing.T) *issuer {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	is := &issuer{t: t, key: key}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", func(w http.ResponseWriter, _ *http.Request) {
		json.NewEncoder(w).Encode(map[string]any{"issuer": is.URL, "jwks_uri": is.URL + "/jwks", "introspection_endpoint": is.URL + "/introspect"})
	})
	// One opaque token is active: opaqueToken, of carol, granting
	// demo.write, for any audience the resource server asks about.
	mux.HandleFunc("POST /introspect", func(w http.ResponseWriter, r *http.Request) {
		if id, secret, ok := r.BasicAuth(); !ok || id != introspector || secret != introspectorSecret {
			http.Error(w, "client authentication failed", http.StatusUnauthorized)
			return
		}
		ans := map[string]any{"active": false}
		if r.PostFormValue("token") == opaqueToken {
			ans = map[string]any{"active": true, "sub": "carol", "scope": "demo.write", "iss": is.URL, "exp": time.Now().Add(time.Hour).Unix()}
		}
		json.NewEncoder(w).Encode(ans)
	})
	mux.HandleFunc("GET /jwks", func(w http.ResponseWriter, _ *http.Request) {
		b := func(n []byte) string { return base64.RawURLEncoding.EncodeToString(n) }
		x, y := make([]byte, 32), make([]byte, 32)
		key.X.FillBytes(x)
		key.Y.FillBytes(y)
		json.NewEncoder(w).Encode(map[string]any{"keys": []any{map[string]any{
			"kty": "EC", "crv": "P-256", "kid": "demo", "alg": "ES256", "use": "sig", "x": b(x), "y": b(y),
		}}})
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	is.URL = srv.URL
	return is
}

// The resource server's credentials at the introspection endpoint, and
// the one opaque token the issuer knows.
const (
	introspector, introspectorSecret = "demo-rs", "demo-rs-secret"
	opaqueToken                      = "opaque-token-of-carol"
)

// token returns an access token of subject for audience granting scope,
// expiring at exp.
func (is *issuer) token(subject, audience, scope string, exp time.Time) string {
	tok := jwt.NewWithClaims(jwt.SigningMethodES256, jwt.MapClaims{
		"iss": is.URL, "sub": subject, "aud": audience, "scope": scope, "client_id": "demo-client",
		"iat": time.Now().Add(-time.Minute).Unix(), "exp": exp.Unix(),
	})
	tok.Header["kid"] = "demo"
	s, err := tok.SignedString(is.key)
	if err != nil {
		is.t.Fatal(err)
	}
	return s
}

// With -oauth-issuer, the demo server serves its protected resource
// metadata, refuses a request without a valid token of its issuer for its
// audience (401, the challenge naming the metadata), refuses a tool call
// whose token lacks the -oauth-scopes scope (403 insufficient_scope),
// binds a session to its subject (another subject's token: 404), and
// never logs a token, even at -v with JSON records.
func TestDemoserver_oauthResourceServer(t *testing.T) {
	bearer := func(token string) string {
		if token == "" {
			return ""
		}
		return "Bearer " + token
	}
	is := newIssuer(t)
	logs := &testproc.LockedBuffer{}
	s, err := Start([]string{"-listen", "http://127.0.0.1:0", "-oauth-issuer", is.URL, "-oauth-scopes", "add:demo.write", "-v", "-log-json"}, logs)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	endpoint := s.URL() + "/mcp"
	hour := time.Now().Add(time.Hour)
	alice := is.token("alice", endpoint, "demo.read", hour)
	writer := is.token("alice", endpoint, "demo.read demo.write", hour)
	bob := is.token("bob", endpoint, "demo.read demo.write", hour)
	tokens := map[string]string{
		"alice": alice, "writer": writer, "bob": bob,
		"expired":        is.token("alice", endpoint, "demo.read", time.Now().Add(-time.Hour)),
		"other audience": is.token("alice", "https://elsewhere.example/mcp", "demo.read", hour),
	}

	resp, err := http.Get(s.URL() + "/.well-known/oauth-protected-resource/mcp")
	if err != nil {
		t.Fatal(err)
	}
	var md struct {
		Resource             string   `json:"resource"`
		AuthorizationServers []string `json:"authorization_servers"`
		ScopesSupported      []string `json:"scopes_supported"`
	}
	err = json.NewDecoder(resp.Body).Decode(&md)
	resp.Body.Close()
	if err != nil || md.Resource != endpoint || len(md.AuthorizationServers) != 1 || md.AuthorizationServers[0] != is.URL ||
		len(md.ScopesSupported) != 1 || md.ScopesSupported[0] != "demo.write" {
		t.Fatalf("metadata: %+v, %v", md, err)
	}

	const initialize = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`
	for _, name := range []string{"", "expired", "other audience"} {
		resp, body := mcpPost(t, endpoint, "", bearer(tokens[name]), initialize)
		ch := resp.Header.Get("WWW-Authenticate")
		if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(ch, `resource_metadata="`+s.URL()+`/.well-known/oauth-protected-resource/mcp"`) ||
			!strings.Contains(body, `"code":-32009`) {
			t.Fatalf("initialize with token %q: %d %q %s", name, resp.StatusCode, ch, body)
		}
	}
	resp, body := mcpPost(t, endpoint, "", bearer(alice), initialize)
	session := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || session == "" {
		t.Fatalf("initialize: %d %s", resp.StatusCode, body)
	}
	mcpPost(t, endpoint, session, bearer(alice), `{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	const add = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}`
	resp, body = mcpPost(t, endpoint, session, bearer(alice), add)
	if ch := resp.Header.Get("WWW-Authenticate"); resp.StatusCode != http.StatusForbidden ||
		!strings.Contains(ch, `error="insufficient_scope"`) || !strings.Contains(ch, `scope="demo.write"`) || !strings.Contains(body, `"scope":"demo.write"`) {
		t.Fatalf("add without demo.write: %d %q %s", resp.StatusCode, ch, body)
	}
	if resp, body = mcpPost(t, endpoint, session, bearer(bob), add); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("bob on alice's session: %d %s", resp.StatusCode, body)
	}
	if resp, body = mcpPost(t, endpoint, session, bearer(writer), add); resp.StatusCode != http.StatusOK || !strings.Contains(body, `"result"`) {
		t.Fatalf("add with demo.write: %d %s", resp.StatusCode, body)
	}

	// /rpc checks the token of each call (middleware.Auth with the
	// resource server's Bearer).
	if a := post(t, s.URL()+"/rpc", "Bearer "+writer, `{"jsonrpc":"2.0","id":1,"method":"subtract","params":[42,23]}`); a.status != http.StatusOK || !strings.Contains(string(a.raw), `"result":19`) {
		t.Fatalf("/rpc with a token: %d %s", a.status, a.raw)
	}
	if a := post(t, s.URL()+"/rpc", "Bearer "+tokens["expired"], `{"jsonrpc":"2.0","id":1,"method":"subtract","params":[42,23]}`); a.status != http.StatusUnauthorized {
		t.Fatalf("/rpc with an expired token: %d %s", a.status, a.raw)
	}

	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	out := logs.String()
	if !strings.Contains(out, `"msg":"oauth: request refused"`) {
		t.Fatalf("no refusal logged:\n%s", out)
	}
	for line := range strings.Lines(out) {
		if !json.Valid([]byte(line)) {
			t.Fatalf("not a JSON record: %q", line)
		}
	}
	for name, tok := range tokens {
		parts := strings.Split(tok, ".") // header, claims, signature: the last two are the token's own
		if strings.Contains(out, parts[1]) || strings.Contains(out, parts[2]) {
			t.Errorf("the log holds the %s token", name)
		}
	}
}

// On TCP (as on stdio and Unix sockets) the token rides in
// params._meta.authorization, checked by the same resource server for
// -oauth-audience: no token -32009, a token without the tool's scope
// -32010 naming it, one with it served; with -oauth-client-id, an opaque
// token is introspected.
func TestDemoserver_oauthOnStreamTransports(t *testing.T) {
	is := newIssuer(t)
	const audience = "https://demo.example/mcp"
	s, err := Start([]string{"-listen", "tcp://127.0.0.1:0", "-oauth-issuer", is.URL, "-oauth-audience", audience, "-oauth-scopes", "add:demo.write",
		"-oauth-client-id", introspector, "-oauth-client-secret", introspectorSecret}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	nc, err := net.DialTimeout("tcp", strings.TrimPrefix(s.URL(), "tcp://"), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(30 * time.Second))
	c := &client{t: t, w: nc, br: bufio.NewReader(nc), framing: codec.Newline}
	hour := time.Now().Add(time.Hour)
	reader, writer := is.token("alice", audience, "demo.read", hour), is.token("alice", audience, "demo.write", hour)
	call := func(id int, method, params, token string) string {
		meta := ""
		if token != "" {
			meta = `,"_meta":{"authorization":"Bearer ` + token + `"}`
		}
		c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":{%s%s}}`, id, method, params, meta))
		return string(c.recv())
	}
	if got := call(0, "initialize", `"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}`, reader); !strings.Contains(got, `"result"`) {
		t.Fatalf("initialize: %s", got)
	}
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized","params":{"_meta":{"authorization":"Bearer ` + reader + `"}}}`)
	const add = `"name":"add","arguments":{"a":1,"b":2}`
	for i, tc := range []struct{ token, want string }{
		{"", `"code":-32009`},
		{reader, `"error":{"code":-32010,"message":"Forbidden: the access token lacks the scope demo.write","data":{"scope":"demo.write"}}`},
		{writer, `"structuredContent":{"sum":3}`},
		{opaqueToken, `"structuredContent":{"sum":3}`}, // introspected
		{"opaque-token-nobody-issued", `"code":-32009`},
	} {
		if got := call(1, "tools/call", add, tc.token); !strings.Contains(got, tc.want) {
			t.Errorf("add, case %d: %s, want %s", i, got, tc.want)
		}
	}
}
