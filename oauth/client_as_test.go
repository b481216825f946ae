package oauth_test

import (
	"bytes"
	"context"
	"crypto"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/mcp/streamable"
	"github.com/mcpwire/mcpwire/oauth"
)

// testAS is an authorization server for the Authorizer's tests: RFC 8414
// metadata, an authorization endpoint that approves at once (redirecting
// with a code, the state and iss), a token endpoint checking PKCE, the
// resource and the client's authentication, and dynamic registration. It
// records what it was sent, and fails the test on a request a correct
// client does not make.
type testAS struct {
	t   *testing.T
	srv *httptest.Server

	// Set before use.
	authMethods []string                        // token_endpoint_auth_methods_supported
	issMode     string                          // "" (iss sent), "absent", "wrong"
	advertise   bool                            // authorization_response_iss_parameter_supported
	scopes      []string                        // scopes_supported
	secret      string                          // the pre-registered client "app"'s secret
	publicKey   crypto.PublicKey                // the client "robot"'s (private_key_jwt)
	noPKCE      bool                            // code_challenge_methods_supported left out
	withhold    string                          // a scope never granted
	dpop        *dpopCheck                      // DPoP supported, proofs checked
	wrap        func(http.Handler) http.Handler // around the MCP server's handler

	mu         sync.Mutex
	codes      map[string]url.Values // the authorization request of each code
	tokens     map[string]grant      // by access token
	refreshes  map[string]grant      // by refresh token
	authorizes []url.Values          // the authorization requests
	tokenForms []url.Values          // the token requests' forms
	tokenAuth  []string              // how each token request authenticated
	registered []map[string]any      // the registration requests
	dpopTokens int                   // the DPoP-bound tokens issued
}

// grant is what a token stands for.
type grant struct {
	scope, resource string
	expiry          time.Time
}

// newTestAS starts a testAS; it stops with the test.
func newTestAS(t *testing.T) *testAS {
	as := &testAS{t: t, advertise: true, secret: "s3cret-app", codes: map[string]url.Values{},
		tokens: map[string]grant{}, refreshes: map[string]grant{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", as.metadata)
	mux.HandleFunc("GET /authorize", as.authorize)
	mux.HandleFunc("POST /token", as.token)
	mux.HandleFunc("POST /register", as.register)
	as.srv = httptest.NewServer(mux)
	t.Cleanup(as.srv.Close)
	return as
}

func (as *testAS) issuer() string { return as.srv.URL }

func (as *testAS) metadata(w http.ResponseWriter, _ *http.Request) {
	md := map[string]any{
		"issuer":                   as.issuer(),
		"authorization_endpoint":   as.issuer() + "/authorize",
		"token_endpoint":           as.issuer() + "/token",
		"registration_endpoint":    as.issuer() + "/register",
		"response_types_supported": []string{"code"},
		"authorization_response_iss_parameter_supported": as.advertise,
	}
	if !as.noPKCE {
		md["code_challenge_methods_supported"] = []string{"S256"}
	}
	if as.authMethods != nil {
		md["token_endpoint_auth_methods_supported"] = as.authMethods
	}
	if as.scopes != nil {
		md["scopes_supported"] = as.scopes
	}
	if as.dpop != nil {
		md["dpop_signing_alg_values_supported"] = []string{"ES256"}
	}
	writeStatusJSON(w, http.StatusOK, md)
}

func (as *testAS) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	as.mu.Lock()
	defer as.mu.Unlock()
	as.authorizes = append(as.authorizes, q)
	if q.Get("response_type") != "code" || q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" || q.Get("state") == "" {
		as.t.Errorf("authorization request without PKCE S256 or state: %v", q)
	}
	code := fmt.Sprintf("code-%d", len(as.authorizes))
	as.codes[code] = q
	back, err := url.Parse(q.Get("redirect_uri"))
	if err != nil {
		http.Error(w, "bad redirect_uri", http.StatusBadRequest)
		return
	}
	v := url.Values{"code": {code}, "state": {q.Get("state")}}
	switch as.issMode {
	case "":
		v.Set("iss", as.issuer())
	case "wrong":
		v.Set("iss", as.issuer()+"/")
	}
	back.RawQuery = v.Encode()
	http.Redirect(w, r, back.String(), http.StatusFound)
}

func (as *testAS) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, "bad form", http.StatusBadRequest)
		return
	}
	f := r.PostForm
	dpop := as.dpop != nil && r.Header.Get("DPoP") != ""
	if dpop {
		switch err := as.dpop.verify(r, ""); {
		case errors.Is(err, errNonce):
			w.Header().Set("DPoP-Nonce", as.dpop.nonce)
			writeStatusJSON(w, http.StatusBadRequest, map[string]string{"error": "use_dpop_nonce"})
			return
		case err != nil:
			writeStatusJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_dpop_proof"})
			return
		}
	}
	as.mu.Lock()
	defer as.mu.Unlock()
	as.tokenForms = append(as.tokenForms, f)
	client, how := as.authenticate(r, f)
	as.tokenAuth = append(as.tokenAuth, how)
	if client == "" {
		writeStatusJSON(w, http.StatusUnauthorized, map[string]string{"error": "invalid_client"})
		return
	}
	var g grant
	switch f.Get("grant_type") {
	case "authorization_code":
		q, ok := as.codes[f.Get("code")]
		delete(as.codes, f.Get("code"))
		sum := sha256.Sum256([]byte(f.Get("code_verifier")))
		switch {
		case !ok:
			writeStatusJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant"})
			return
		case base64.RawURLEncoding.EncodeToString(sum[:]) != q.Get("code_challenge"):
			writeStatusJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant", "error_description": "PKCE verification failed"})
			return
		case f.Get("resource") != q.Get("resource") || f.Get("redirect_uri") != q.Get("redirect_uri"):
			writeStatusJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_target"})
			return
		}
		g = grant{scope: strings.Join(slices.DeleteFunc(strings.Fields(q.Get("scope")), func(s string) bool { return s == as.withhold }), " "),
			resource: q.Get("resource")}
	case "refresh_token":
		old, ok := as.refreshes[f.Get("refresh_token")]
		if !ok || f.Get("resource") != old.resource {
			writeStatusJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant"})
			return
		}
		g = old
	case "client_credentials":
		g = grant{scope: f.Get("scope"), resource: f.Get("resource")}
	case "urn:ietf:params:oauth:grant-type:token-exchange": // as an enterprise IdP
		if f.Get("subject_token") != "user-id-token" || f.Get("client_id") != "idp-client" ||
			f.Get("subject_token_type") != "urn:ietf:params:oauth:token-type:id_token" ||
			f.Get("requested_token_type") != "urn:ietf:params:oauth:token-type:id-jag" {
			writeStatusJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_request"})
			return
		}
		writeStatusJSON(w, http.StatusOK, map[string]any{"access_token": "jag|" + f.Get("audience") + "|" + f.Get("resource"),
			"issued_token_type": "urn:ietf:params:oauth:token-type:id-jag", "token_type": "N_A"})
		return
	case "urn:ietf:params:oauth:grant-type:jwt-bearer":
		if a := f.Get("assertion"); a != "workload-jwt" && a != "jag|"+as.issuer()+"|"+f.Get("resource") {
			writeStatusJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant"})
			return
		}
		g = grant{scope: f.Get("scope"), resource: f.Get("resource")}
	default:
		writeStatusJSON(w, http.StatusBadRequest, map[string]string{"error": "unsupported_grant_type"})
		return
	}
	n := len(as.tokenForms)
	access, refresh := fmt.Sprintf("access-%d-secret", n), fmt.Sprintf("refresh-%d-secret", n)
	g.expiry = time.Now().Add(time.Hour)
	as.tokens[access] = g
	as.refreshes[refresh] = g
	tokenType := "Bearer"
	if dpop {
		tokenType = "DPoP"
		as.dpopTokens++
	}
	writeStatusJSON(w, http.StatusOK, map[string]any{"access_token": access, "token_type": tokenType,
		"expires_in": 3600, "refresh_token": refresh, "scope": g.scope})
}

// authenticate returns the client a token request authenticates as
// ("" if it fails) and how: "basic", "post", "none" or "jwt".
func (as *testAS) authenticate(r *http.Request, f url.Values) (client, how string) {
	if id, secret, ok := r.BasicAuth(); ok {
		if (id == "app" && secret == as.secret) || (strings.HasPrefix(id, "dyn-") && secret == "dyn-secret") {
			return id, "basic"
		}
		return "", "basic"
	}
	id := f.Get("client_id")
	switch {
	case f.Get("client_assertion_type") != "":
		tok, err := jwt.Parse(f.Get("client_assertion"), func(*jwt.Token) (any, error) { return as.publicKey, nil },
			jwt.WithValidMethods([]string{"ES256"}), jwt.WithAudience(as.issuer()), jwt.WithIssuer("robot"), jwt.WithSubject("robot"),
			jwt.WithExpirationRequired())
		if err != nil || !tok.Valid {
			return "", "jwt"
		}
		return "robot", "jwt"
	case f.Has("client_secret"):
		if (id == "app" && f.Get("client_secret") == as.secret) || (strings.HasPrefix(id, "dyn-") && f.Get("client_secret") == "dyn-secret") {
			return id, "post"
		}
		return "", "post"
	}
	return id, "none"
}

func (as *testAS) register(w http.ResponseWriter, r *http.Request) {
	var req map[string]any
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, "bad body", http.StatusBadRequest)
		return
	}
	as.mu.Lock()
	defer as.mu.Unlock()
	as.registered = append(as.registered, req)
	resp := map[string]any{"client_id": fmt.Sprintf("dyn-%d", len(as.registered)), "token_endpoint_auth_method": req["token_endpoint_auth_method"]}
	if req["token_endpoint_auth_method"] != "none" {
		resp["client_secret"] = "dyn-secret"
	}
	writeStatusJSON(w, http.StatusCreated, resp)
}

// verify is the MCP server's TokenVerifier: the tokens this server
// issued, for resource.
func (as *testAS) verify(resource string) oauth.VerifierFunc {
	return func(_ context.Context, token string) (*oauth.Principal, error) {
		as.mu.Lock()
		g, ok := as.tokens[token]
		as.mu.Unlock()
		switch {
		case !ok:
			return nil, oauth.ErrTokenInactive
		case g.resource != resource:
			return nil, oauth.ErrTokenAudience
		case time.Now().After(g.expiry):
			return nil, oauth.ErrTokenExpired
		}
		return &oauth.Principal{Issuer: as.issuer(), Subject: "alice", Scopes: strings.Fields(g.scope), Expiry: g.expiry}, nil
	}
}

// expire makes every token issued so far expired.
func (as *testAS) expire() {
	as.mu.Lock()
	defer as.mu.Unlock()
	for k, g := range as.tokens {
		g.expiry = time.Now().Add(-time.Minute)
		as.tokens[k] = g
	}
}

// count returns the authorization and token requests made so far.
func (as *testAS) count() (authorizes, tokens int) {
	as.mu.Lock()
	defer as.mu.Unlock()
	return len(as.authorizes), len(as.tokenForms)
}

// writeStatusJSON answers v as JSON with status.
func writeStatusJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// protectedMCP is an MCP server at /mcp whose every request needs a
// token of as's with the scope "mcp", and whose tools/call needs the
// scopes in callScopes too (a 403 insufficient_scope otherwise).
type protectedMCP struct {
	srv      *httptest.Server
	endpoint string
}

func newProtectedMCP(t *testing.T, as *testAS, callScopes ...string) *protectedMCP {
	srv := mcp.NewServer(&mcp.Implementation{Name: "protected", Version: "1"}, nil)
	err := mcp.AddTool(srv, &mcp.Tool{Name: "whoami"},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "served"}}}, nil, nil
		})
	if err != nil {
		t.Fatal(err)
	}
	r := &protectedMCP{}
	mux := http.NewServeMux()
	var h http.Handler = mux
	if as.wrap != nil {
		h = as.wrap(h)
	}
	r.srv = httptest.NewServer(h)
	t.Cleanup(r.srv.Close)
	r.endpoint = r.srv.URL + "/mcp"
	mdURL, _ := oauth.MetadataURL(r.endpoint)
	mdPath, _ := oauth.MetadataPath(r.endpoint)
	md, err := oauth.MetadataHandler(oauth.ResourceMetadata{Resource: r.endpoint, AuthorizationServers: []string{as.issuer()}, ScopesSupported: []string{"mcp"}})
	if err != nil {
		t.Fatal(err)
	}
	mux.Handle(mdPath, md)
	bearer := oauth.NewBearer(as.verify(r.endpoint), &oauth.BearerOptions{ResourceMetadataURL: mdURL, Scopes: []string{"mcp"}})
	sh := streamable.NewHandler(srv, &streamable.Options{Middleware: func(next http.Handler) http.Handler {
		return bearer.Wrap(stepUp(next, mdURL, callScopes))
	}})
	t.Cleanup(func() { sh.Close() })
	mux.Handle("/mcp", sh)
	return r
}

// stepUp answers a tools/call whose token lacks one of scopes with 403
// insufficient_scope, naming them all with mcp.
func stepUp(next http.Handler, mdURL string, scopes []string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, _ := oauth.FromContext(r.Context())
		if len(scopes) == 0 || !strings.Contains(peekBody(r), `"tools/call"`) || len(p.MissingScopes(scopes...)) == 0 {
			next.ServeHTTP(w, r)
			return
		}
		w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer error="insufficient_scope", scope=%q, resource_metadata=%q`,
			strings.Join(append([]string{"mcp"}, scopes...), " "), mdURL))
		w.WriteHeader(http.StatusForbidden)
	})
}

// peekBody returns r's body, leaving it to be read again.
func peekBody(r *http.Request) string {
	b, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(b))
	return string(b)
}

// scopesOf returns the scope of each authorization request.
func (as *testAS) scopesOf() []string {
	as.mu.Lock()
	defer as.mu.Unlock()
	var s []string
	for _, q := range as.authorizes {
		s = append(s, q.Get("scope"))
	}
	return slices.Clip(s)
}
