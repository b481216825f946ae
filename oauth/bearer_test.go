package oauth_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/middleware"
	"github.com/mcpwire/mcpwire/oauth"
)

const testMetadataURL = "https://mcp.example.test/.well-known/oauth-protected-resource/mcp"

// fakeVerifier accepts "good-*" tokens, granting the scopes after the
// dash, and refuses the others with the error their name says.
var fakeVerifier = oauth.VerifierFunc(func(_ context.Context, tok string) (*oauth.Principal, error) {
	switch {
	case strings.HasPrefix(tok, "good-"):
		return &oauth.Principal{Issuer: "https://as.test", Subject: "alice", Scopes: strings.Split(tok[len("good-"):], "+")}, nil
	case tok == "expired-secret":
		return nil, oauth.ErrTokenExpired
	case tok == "down-secret":
		return nil, fmt.Errorf("%w: dial tcp 10.0.0.1:443: refused (token down-secret)", oauth.ErrUnavailable)
	}
	return nil, fmt.Errorf("library said: bad token %q", tok)
})

// serve runs one request through Wrap and returns the response and what
// next saw.
func serve(t *testing.T, b *oauth.Bearer, r *http.Request) (*http.Response, *oauth.Principal) {
	t.Helper()
	var seen *oauth.Principal
	h := b.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen, _ = oauth.FromContext(r.Context())
		if p, _ := middleware.PrincipalFromContext(r.Context()); seen != nil && p != any(seen) {
			t.Errorf("middleware.PrincipalFromContext = %v: not the oauth principal", p)
		}
		io.WriteString(w, "served")
	}))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, r)
	return rec.Result(), seen
}

func TestBearer_answersEachRefusal(t *testing.T) {
	b := oauth.NewBearer(fakeVerifier, &oauth.BearerOptions{ResourceMetadataURL: testMetadataURL, Scopes: []string{"mcp"}})
	const rm = `resource_metadata="` + testMetadataURL + `"`
	for _, tc := range []struct {
		name, target, auth string
		status             int
		challenge          string // "": none
		body               string
	}{
		{
			name: "no token", target: "/mcp", status: 401,
			challenge: `Bearer scope="mcp", ` + rm,
			body:      `{"jsonrpc":"2.0","id":null,"error":{"code":-32009,"message":"Unauthorized: an access token is required (Authorization: Bearer …)"}}`,
		},
		{
			name: "another scheme", target: "/mcp", auth: "Basic dXNlcjpwYXNz", status: 401,
			challenge: `Bearer scope="mcp", ` + rm,
			body:      `{"jsonrpc":"2.0","id":null,"error":{"code":-32009,"message":"Unauthorized: an access token is required (Authorization: Bearer …)"}}`,
		},
		{
			name: "expired", target: "/mcp", auth: "Bearer expired-secret", status: 401,
			challenge: `Bearer error="invalid_token", error_description="the access token is invalid: expired", scope="mcp", ` + rm,
			body:      `{"jsonrpc":"2.0","id":null,"error":{"code":-32009,"message":"Unauthorized: the access token is invalid: expired"}}`,
		},
		{
			name: "refused with a library's error", target: "/mcp", auth: "bearer wrong-secret", status: 401,
			challenge: `Bearer error="invalid_token", error_description="the access token is invalid", scope="mcp", ` + rm,
			body:      `{"jsonrpc":"2.0","id":null,"error":{"code":-32009,"message":"Unauthorized: the access token is invalid"}}`,
		},
		{
			name: "two tokens in the header", target: "/mcp", auth: "Bearer a-secret b-secret", status: 401,
			challenge: `Bearer error="invalid_token", error_description="the access token is invalid: malformed", scope="mcp", ` + rm,
			body:      `{"jsonrpc":"2.0","id":null,"error":{"code":-32009,"message":"Unauthorized: the access token is invalid: malformed"}}`,
		},
		{
			name: "missing scope", target: "/mcp", auth: "Bearer good-other", status: 403,
			challenge: `Bearer error="insufficient_scope", scope="mcp", error_description="the access token lacks a required scope", ` + rm,
			body:      `{"jsonrpc":"2.0","id":null,"error":{"code":-32010,"message":"Forbidden: the access token lacks the scope mcp","data":{"scope":"mcp"}}}`,
		},
		{
			name: "token in the query", target: "/mcp?access_token=query-secret", status: 400,
			challenge: `Bearer error="invalid_request", error_description="send the access token in the Authorization header, never in the URL", ` + rm,
			body:      `{"jsonrpc":"2.0","id":null,"error":{"code":-32009,"message":"Unauthorized: access tokens are accepted in the Authorization header only, never in the URL"}}`,
		},
		{
			name: "token in the query and the header", target: "/mcp?access_token=query-secret", auth: "Bearer good-mcp", status: 400,
			challenge: `Bearer error="invalid_request", error_description="send the access token in the Authorization header, never in the URL", ` + rm,
			body:      `{"jsonrpc":"2.0","id":null,"error":{"code":-32009,"message":"Unauthorized: access tokens are accepted in the Authorization header only, never in the URL"}}`,
		},
		{
			name: "authorization server down", target: "/mcp", auth: "Bearer down-secret", status: 503,
			body: `{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"Internal error: the access token cannot be checked now; retry later"}}`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest("POST", tc.target, strings.NewReader(`{}`))
			if tc.auth != "" {
				r.Header.Set("Authorization", tc.auth)
			}
			resp, seen := serve(t, b, r)
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tc.status || string(body) != tc.body {
				t.Errorf("got %d %s\nwant %d %s", resp.StatusCode, body, tc.status, tc.body)
			}
			if got := resp.Header.Get("WWW-Authenticate"); got != tc.challenge {
				t.Errorf("WWW-Authenticate = %s\nwant %s", got, tc.challenge)
			}
			if seen != nil {
				t.Errorf("next served a refused request as %v", seen)
			}
			if strings.Contains(string(body)+resp.Header.Get("WWW-Authenticate"), "secret") {
				t.Error("the refusal carries the token")
			}
		})
	}
}

func TestBearer_servesAcceptedTokenWithPrincipal(t *testing.T) {
	b := oauth.NewBearer(fakeVerifier, &oauth.BearerOptions{Scopes: []string{"mcp"}})
	r := httptest.NewRequest("POST", "/mcp", nil)
	r.Header.Set("Authorization", "Bearer   good-mcp+tools")
	resp, seen := serve(t, b, r)
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || string(body) != "served" || seen == nil || seen.Subject != "alice" {
		t.Fatalf("got %d %q, principal %+v", resp.StatusCode, body, seen)
	}
	if err := oauth.RequireScopes(oauth.ContextWithPrincipal(context.Background(), seen), "tools", "mcp"); err != nil {
		t.Errorf("RequireScopes of granted scopes: %v", err)
	}
	// A CORS preflight passes unauthenticated.
	r = httptest.NewRequest("OPTIONS", "/mcp", nil)
	r.Header.Set("Origin", "https://app.example.test")
	r.Header.Set("Access-Control-Request-Method", "POST")
	if resp, seen := serve(t, b, r); resp.StatusCode != 200 || seen != nil {
		t.Errorf("preflight: %d, principal %v", resp.StatusCode, seen)
	}
	// Without a metadata URL or scopes, the bare challenge.
	resp, _ = serve(t, oauth.NewBearer(fakeVerifier, nil), httptest.NewRequest("GET", "/mcp", nil))
	if got := resp.Header.Get("WWW-Authenticate"); resp.StatusCode != 401 || got != "Bearer" {
		t.Errorf("no options: %d %q", resp.StatusCode, got)
	}
}

func TestBearer_authenticatesForMiddlewareAuth(t *testing.T) {
	b := oauth.NewBearer(fakeVerifier, &oauth.BearerOptions{Scopes: []string{"mcp"}})
	for _, tc := range []struct {
		cred string
		want codec.Code
	}{
		{"", codec.CodeUnauthorized},
		{"Bearer expired-secret", codec.CodeUnauthorized},
		{"Bearer good-other", codec.CodeForbidden},
		{"Bearer down-secret", codec.CodeInternalError},
		{"Bearer good-mcp", 0},
	} {
		who, err := b.Authenticate(context.Background(), tc.cred)
		if tc.want == 0 {
			if p, ok := who.(*oauth.Principal); err != nil || !ok || p.Subject != "alice" {
				t.Errorf("%q: %v, %v", tc.cred, who, err)
			}
			continue
		}
		e, ok := errors.AsType[*codec.Error](err)
		if !ok || e.Code != tc.want || strings.Contains(e.Message, "secret") {
			t.Errorf("%q: err %v, want code %d", tc.cred, err, tc.want)
		}
	}
}

// No token or secret reaches a log record, whatever the failure: the
// Bearer's own records and the verifiers' (an introspection endpoint that
// fails, one that refuses the client's credentials, key set fetches).
func TestBearer_neverLogsTokens(t *testing.T) {
	var buf bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	is := newTestIssuer(t)
	jv := newJWTVerifier(t, is, &oauth.JWTOptions{Logger: logger})
	iv, err := oauth.NewIntrospectionVerifier(t.Context(), &oauth.IntrospectionOptions{
		Issuer: is.URL, Audience: testResource, ClientID: testClientID, ClientSecret: testClientSecret, Logger: logger,
	})
	if err != nil {
		t.Fatal(err)
	}
	bad, err := oauth.NewIntrospectionVerifier(t.Context(), &oauth.IntrospectionOptions{
		Issuer: is.URL, Audience: testResource, ClientID: testClientID, ClientSecret: "wrong-" + testClientSecret, Logger: logger,
	})
	if err != nil {
		t.Fatal(err)
	}
	tokens := []string{
		is.Sign(is.claims("other")), // missing scope
		is.Sign(is.claims("mcp")) + "x", unsigned(t, "k1", is.claims("mcp")),
		"opaque-token-secret-1", "expired-secret", "down-secret", "wrong-secret",
	}
	either := oauth.VerifierFunc(func(ctx context.Context, tok string) (*oauth.Principal, error) {
		switch {
		case strings.Count(tok, ".") == 2:
			return jv.VerifyToken(ctx, tok)
		case strings.HasPrefix(tok, "opaque"):
			if _, err := bad.VerifyToken(ctx, tok); err == nil {
				t.Error("an endpoint refusing the client's credentials accepted a token")
			}
			return iv.VerifyToken(ctx, tok)
		}
		return fakeVerifier(ctx, tok)
	})
	b := oauth.NewBearer(either, &oauth.BearerOptions{Scopes: []string{"mcp"}, Logger: logger})
	for _, tok := range tokens {
		r := httptest.NewRequest("POST", "/mcp", nil)
		r.Header.Set("Authorization", "Bearer "+tok)
		serve(t, b, r)
		b.Authenticate(context.Background(), "Bearer "+tok)
	}
	serve(t, b, httptest.NewRequest("GET", "/mcp?access_token=query-secret", nil))
	out := buf.String()
	if strings.Count(out, "oauth: request refused") < 2*len(tokens) {
		t.Fatalf("fewer records than refusals:\n%s", out)
	}
	for _, secret := range append(tokens, "query-secret", testClientSecret) {
		if strings.Contains(out, secret) {
			t.Errorf("a log record holds %q:\n%s", secret, out)
		}
	}
	for _, tok := range tokens {
		if parts := strings.Split(tok, "."); len(parts) == 3 && parts[2] != "" && strings.Contains(out, parts[2]) {
			t.Errorf("a log record holds a token's signature:\n%s", out)
		}
	}
}
