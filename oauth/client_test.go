package oauth_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/mcp/streamable"
	"github.com/mcpwire/mcpwire/oauth"
)

// approve is a RedirectHandler of a user who approves at once: the
// authorization URL is fetched without following its redirect, whose
// query is the response (tamper, if set, changes it first).
type approve struct{ tamper func(url.Values) }

func (approve) RedirectURL() string { return "http://127.0.0.1:9/callback" }

func (a approve) Authorize(ctx context.Context, authURL string) (url.Values, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, authURL, nil)
	if err != nil {
		return nil, err
	}
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	resp.Body.Close()
	loc, err := url.Parse(resp.Header.Get("Location"))
	if err != nil {
		return nil, err
	}
	q := loc.Query()
	if a.tamper != nil {
		a.tamper(q)
	}
	return q, nil
}

// connect opens a session of protocol version with the server at
// endpoint, authorized by a.
func connect(t *testing.T, endpoint, version string, a *oauth.Authorizer) (*mcp.ClientSession, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{ProtocolVersion: version})
	s, err := streamable.Connect(ctx, c, endpoint, &streamable.ClientOptions{DisableSSEFallback: true, Authorizer: a})
	if err == nil {
		t.Cleanup(func() { s.Close() })
	}
	return s, err
}

// served connects to endpoint with a and calls its tool, failing the
// test if either fails.
func served(t *testing.T, endpoint, version string, a *oauth.Authorizer) {
	t.Helper()
	s, err := connect(t, endpoint, version, a)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := whoami(s); err != nil {
		t.Fatal(err)
	}
}

// whoami calls the test resource's tool and returns its text.
func whoami(s *mcp.ClientSession) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	r, err := s.CallTool(ctx, "whoami", map[string]any{})
	if err != nil {
		return "", err
	}
	if r.IsError || len(r.Content) == 0 {
		return "", errors.New("the tool failed")
	}
	return r.Content[0].(*mcp.TextContent).Text, nil
}

// newAuthorizer returns an Authorizer with o, failing the test on error.
func newAuthorizer(t *testing.T, o *oauth.AuthorizerOptions) *oauth.Authorizer {
	t.Helper()
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	a, err := oauth.NewAuthorizer(o)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// The whole flow, in both eras: 401 → resource metadata → server metadata
// → authorization code with PKCE, state, iss and resource → token; the
// test server checks the verifier against the challenge and the
// resource, and the resource server accepts the token. Nothing secret is
// logged.
func TestAuthorizer_codeFlow(t *testing.T) {
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(version, func(t *testing.T) {
			as := newTestAS(t)
			res := newProtectedMCP(t, as)
			var logs bytes.Buffer
			a := newAuthorizer(t, &oauth.AuthorizerOptions{Redirect: approve{}, ClientID: "app", ClientSecret: as.secret,
				Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
			s, err := connect(t, res.endpoint, version, a)
			if err != nil {
				t.Fatal(err)
			}
			if got, err := whoami(s); err != nil || got != "served" {
				t.Fatalf("whoami = %q, %v", got, err)
			}
			authorizes, tokens := as.count()
			if authorizes != 1 || tokens != 1 {
				t.Fatalf("%d authorization and %d token requests, want 1 and 1", authorizes, tokens)
			}
			as.mu.Lock()
			defer as.mu.Unlock()
			q, f := as.authorizes[0], as.tokenForms[0]
			if q.Get("resource") != res.endpoint || f.Get("resource") != res.endpoint {
				t.Errorf("resource %q (authorization), %q (token), want %q", q.Get("resource"), f.Get("resource"), res.endpoint)
			}
			if q.Get("scope") != "mcp" || q.Get("client_id") != "app" || as.tokenAuth[0] != "basic" {
				t.Errorf("scope %q, client %q, authentication %q; want mcp, app, basic", q.Get("scope"), q.Get("client_id"), as.tokenAuth[0])
			}
			if !strings.Contains(logs.String(), "oauth: authorized") {
				t.Errorf("no record of the authorization: %s", logs.String())
			}
			for _, secret := range []string{"-secret", "code-", as.secret, f.Get("code_verifier")} {
				if strings.Contains(logs.String(), secret) {
					t.Errorf("the log holds %q:\n%s", secret, logs.String())
				}
			}
		})
	}
}

// An authorization response is refused, and no token asked for, when its
// state is not the one sent, its iss is not the issuer (compared as
// strings: a trailing slash differs), iss is missing though the server
// promised it, or it carries an error. An absent iss the server never
// promised is accepted.
func TestAuthorizer_checksAuthorizationResponse(t *testing.T) {
	for _, tc := range []struct {
		name      string
		issMode   string
		advertise bool
		tamper    func(url.Values)
		ok        bool
	}{
		{name: "iss", advertise: true, ok: true},
		{name: "no iss, not promised", issMode: "absent", ok: true},
		{name: "no iss, promised", issMode: "absent", advertise: true},
		{name: "wrong iss", issMode: "wrong"},
		{name: "wrong state", advertise: true, tamper: func(q url.Values) { q.Set("state", "forged") }},
		{name: "no state", advertise: true, tamper: func(q url.Values) { q.Del("state") }},
		{name: "error", advertise: true, tamper: func(q url.Values) { q.Del("code"); q.Set("error", "access_denied") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			as := newTestAS(t)
			as.issMode, as.advertise = tc.issMode, tc.advertise
			res := newProtectedMCP(t, as)
			a := newAuthorizer(t, &oauth.AuthorizerOptions{Redirect: approve{tamper: tc.tamper}, ClientID: "app", ClientSecret: as.secret})
			s, err := connect(t, res.endpoint, "2026-07-28", a)
			if err == nil {
				_, err = whoami(s)
			}
			_, tokens := as.count()
			if tc.ok != (err == nil) || !tc.ok && tokens != 0 {
				t.Fatalf("err = %v with %d token requests; want success %v", err, tokens, tc.ok)
			}
		})
	}
}

// Without a client ID the client registers dynamically (RFC 7591), as a
// native application that wants refresh tokens, and authenticates to the
// token endpoint as the server supports: none, client_secret_post or
// client_secret_basic.
func TestAuthorizer_dynamicRegistration(t *testing.T) {
	for _, tc := range []struct{ supported, want string }{
		{"none", "none"}, {"client_secret_post", "post"}, {"client_secret_basic", "basic"},
	} {
		t.Run(tc.supported, func(t *testing.T) {
			as := newTestAS(t)
			as.authMethods = []string{tc.supported}
			res := newProtectedMCP(t, as)
			a := newAuthorizer(t, &oauth.AuthorizerOptions{Redirect: approve{}, ClientName: "tester"})
			served(t, res.endpoint, "2025-11-25", a)
			as.mu.Lock()
			defer as.mu.Unlock()
			if len(as.registered) != 1 || len(as.tokenAuth) != 1 {
				t.Fatalf("%d registrations, %d token requests; want 1 and 1", len(as.registered), len(as.tokenAuth))
			}
			r := as.registered[0]
			if r["application_type"] != "native" || r["token_endpoint_auth_method"] != tc.supported ||
				!slices.Contains(r["grant_types"].([]any), any("refresh_token")) || r["client_name"] != "tester" {
				t.Errorf("registration request %v", r)
			}
			if as.tokenAuth[0] != tc.want {
				t.Errorf("the token request authenticated with %s, want %s", as.tokenAuth[0], tc.want)
			}
		})
	}
}

// Pre-registered credentials go to the authorization server they were
// registered with (ClientIssuer) only: another one gets a dynamic
// registration, and never the client's secret.
func TestAuthorizer_preRegisteredClientStaysWithItsIssuer(t *testing.T) {
	for _, tc := range []struct {
		name, issuer string
		app          bool // the pre-registered client is used
	}{{"its issuer", "", true}, {"any issuer", "-", true}, {"another issuer", "https://elsewhere.example", false}} {
		t.Run(tc.name, func(t *testing.T) {
			as := newTestAS(t)
			as.authMethods = []string{"client_secret_basic"}
			res := newProtectedMCP(t, as)
			issuer := tc.issuer
			switch issuer {
			case "":
				issuer = as.issuer()
			case "-":
				issuer = ""
			}
			a := newAuthorizer(t, &oauth.AuthorizerOptions{Redirect: approve{}, ClientID: "app", ClientSecret: as.secret, ClientIssuer: issuer})
			served(t, res.endpoint, "2025-11-25", a)
			as.mu.Lock()
			defer as.mu.Unlock()
			if got := as.authorizes[0].Get("client_id") == "app"; got != tc.app || (len(as.registered) == 0) != tc.app {
				t.Errorf("client %q, %d registrations; want the pre-registered client: %t", as.authorizes[0].Get("client_id"), len(as.registered), tc.app)
			}
		})
	}
}

// A 403 insufficient_scope is answered with a new authorization asking
// for the scope it names together with the scope held, and
// offline_access, which the server lists.
func TestAuthorizer_stepUp(t *testing.T) {
	as := newTestAS(t)
	as.scopes = []string{"mcp", "write", "offline_access"}
	res := newProtectedMCP(t, as, "write")
	a := newAuthorizer(t, &oauth.AuthorizerOptions{Redirect: approve{}, ClientID: "app", ClientSecret: as.secret})
	served(t, res.endpoint, "2026-07-28", a)
	want := []string{"mcp offline_access", "mcp offline_access write"}
	if got := as.scopesOf(); !slices.Equal(got, want) {
		t.Fatalf("authorizations asked for %q, want %q", got, want)
	}
}

// A scope the server never grants: the step ups stop after
// DefaultMaxStepUps, and the call fails.
func TestAuthorizer_stepUpLimit(t *testing.T) {
	as := newTestAS(t)
	res := newProtectedMCP(t, as, "admin")
	as.withhold = "admin"
	a := newAuthorizer(t, &oauth.AuthorizerOptions{Redirect: approve{}, ClientID: "app", ClientSecret: as.secret})
	s, err := connect(t, res.endpoint, "2025-11-25", a)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := whoami(s); err == nil {
		t.Fatal("the call succeeded without the admin scope")
	}
	if authorizes, _ := as.count(); authorizes != 1+oauth.DefaultMaxStepUps {
		t.Fatalf("%d authorizations, want %d", authorizes, 1+oauth.DefaultMaxStepUps)
	}
}

// A token the server no longer accepts (401) is refreshed with its
// refresh token, the resource parameter sent again, without a new
// authorization; so is a stored token past its expiry, before it is sent.
func TestAuthorizer_refresh(t *testing.T) {
	as := newTestAS(t)
	res := newProtectedMCP(t, as)
	store := &oauth.MemoryTokenStore{}
	a := newAuthorizer(t, &oauth.AuthorizerOptions{Redirect: approve{}, ClientID: "app", ClientSecret: as.secret, Store: store})
	s, err := connect(t, res.endpoint, "2026-07-28", a)
	if err != nil {
		t.Fatal(err)
	}
	as.expire() // refused by the server: 401
	if _, err := whoami(s); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	tok, _ := store.Token(ctx, res.endpoint)
	tok.Expiry = time.Now().Add(-time.Minute) // expired at the client
	_ = store.SetToken(ctx, res.endpoint, tok)
	if _, err := whoami(s); err != nil {
		t.Fatal(err)
	}
	authorizes, tokens := as.count()
	if authorizes != 1 || tokens != 3 {
		t.Fatalf("%d authorizations, %d token requests; want 1 and 3", authorizes, tokens)
	}
	as.mu.Lock()
	defer as.mu.Unlock()
	for _, f := range as.tokenForms[1:] {
		if f.Get("grant_type") != "refresh_token" || f.Get("resource") != res.endpoint {
			t.Errorf("token request %v, want a refresh for %s", f, res.endpoint)
		}
	}
}

// A machine client: the client credentials grant, authenticated with a
// private_key_jwt assertion the server checks (issuer, subject, audience,
// signature).
func TestAuthorizer_clientCredentialsJWT(t *testing.T) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	as := newTestAS(t)
	as.publicKey = &key.PublicKey
	res := newProtectedMCP(t, as)
	a := newAuthorizer(t, &oauth.AuthorizerOptions{Grant: oauth.ClientCredentials, ClientID: "robot", PrivateKey: key, Scopes: []string{"mcp"}})
	served(t, res.endpoint, "2026-07-28", a)
	as.mu.Lock()
	defer as.mu.Unlock()
	if len(as.tokenForms) != 1 || as.tokenAuth[0] != "jwt" || as.tokenForms[0].Get("grant_type") != "client_credentials" ||
		as.tokenForms[0].Get("resource") != res.endpoint {
		t.Fatalf("token requests %v authenticated %v", as.tokenForms, as.tokenAuth)
	}
}

// The JWT bearer grant: a workload's own JWT (a public client), or the
// ID-JAG an enterprise identity provider gives for the user's ID token
// (RFC 8693 exchange naming the authorization server and the resource),
// presented by a confidential client.
func TestAuthorizer_jwtBearer(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts func(as *testAS) *oauth.AuthorizerOptions
		auth string
	}{
		{"workload", func(*testAS) *oauth.AuthorizerOptions {
			return &oauth.AuthorizerOptions{Grant: oauth.JWTBearer, ClientID: "workload",
				Assertion: func(context.Context, string, string) (string, error) { return "workload-jwt", nil }}
		}, "none"},
		{"enterprise", func(as *testAS) *oauth.AuthorizerOptions {
			idToken := func(context.Context) (string, error) { return "user-id-token", nil }
			return &oauth.AuthorizerOptions{Grant: oauth.JWTBearer, ClientID: "app", ClientSecret: as.secret,
				Assertion: oauth.IDJAGAssertion(as.issuer()+"/token", "idp-client", idToken, nil)}
		}, "basic"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			as := newTestAS(t)
			res := newProtectedMCP(t, as)
			served(t, res.endpoint, "2026-07-28", newAuthorizer(t, tc.opts(as)))
			as.mu.Lock()
			defer as.mu.Unlock()
			last := len(as.tokenForms) - 1
			if f := as.tokenForms[last]; f.Get("grant_type") != "urn:ietf:params:oauth:grant-type:jwt-bearer" ||
				f.Get("resource") != res.endpoint || as.tokenAuth[last] != tc.auth {
				t.Fatalf("token request %v authenticated %s, want a JWT bearer grant for %s, %s", f, as.tokenAuth[last], res.endpoint, tc.auth)
			}
		})
	}
}

// Resource metadata naming another resource is refused before any
// authorization.
func TestAuthorizer_resourceMismatch(t *testing.T) {
	as := newTestAS(t)
	res := newProtectedMCP(t, as)
	a := newAuthorizer(t, &oauth.AuthorizerOptions{Redirect: approve{}, ClientID: "app", ClientSecret: as.secret})
	if _, err := connect(t, strings.Replace(res.endpoint, "127.0.0.1", "localhost", 1), "2026-07-28", a); err == nil {
		t.Fatal("connected through metadata of another resource")
	}
	if authorizes, _ := as.count(); authorizes != 0 {
		t.Fatalf("%d authorizations", authorizes)
	}
}

// LoopbackRedirect receives the authorization server's redirect on a
// loopback port: here the "browser" follows the redirect.
func TestLoopbackRedirect(t *testing.T) {
	as := newTestAS(t)
	res := newProtectedMCP(t, as)
	var wg sync.WaitGroup
	t.Cleanup(wg.Wait)
	browser := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	lr, err := oauth.NewLoopbackRedirect(func(authURL string) error {
		wg.Go(func() {
			if resp, err := browser.Get(authURL); err == nil {
				resp.Body.Close()
			}
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lr.Close() })
	if !strings.HasPrefix(lr.RedirectURL(), "http://127.0.0.1:") {
		t.Fatalf("redirect URL %s", lr.RedirectURL())
	}
	a := newAuthorizer(t, &oauth.AuthorizerOptions{Redirect: lr, ClientID: "app", ClientSecret: as.secret})
	served(t, res.endpoint, "2025-11-25", a)
	// A redirect nobody awaits is refused.
	resp, err := browser.Get(lr.RedirectURL() + "?code=x&state=y")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("a stray redirect: %d", resp.StatusCode)
	}
}
