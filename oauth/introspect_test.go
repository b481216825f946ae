package oauth_test

import (
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/oauth"
)

func newIntrospectionVerifier(t *testing.T, is *testIssuer, opts *oauth.IntrospectionOptions) *oauth.IntrospectionVerifier {
	t.Helper()
	o := oauth.IntrospectionOptions{}
	if opts != nil {
		o = *opts
	}
	o.Issuer, o.Audience, o.ClientID, o.ClientSecret = is.URL, testResource, testClientID, testClientSecret
	v, err := oauth.NewIntrospectionVerifier(t.Context(), &o)
	if err != nil {
		t.Fatalf("NewIntrospectionVerifier: %v", err)
	}
	return v
}

func TestIntrospectionVerifier_checksTheAnswer(t *testing.T) {
	is := newTestIssuer(t)
	v := newIntrospectionVerifier(t, is, nil)
	exp := time.Now().Add(5 * time.Minute).Unix()
	answers := map[string]map[string]any{
		"valid":          {"active": true, "scope": "a b", "sub": "bob", "client_id": "app", "exp": exp, "aud": testResource, "iss": is.URL},
		"no aud, no iss": {"active": true, "sub": "bob", "exp": exp},
		"aud list":       {"active": true, "aud": []string{"x", testResource}},
		"inactive":       {"active": false, "sub": "bob"},
		"expired":        {"active": true, "exp": time.Now().Add(-time.Hour).Unix()},
		"nbf ahead":      {"active": true, "nbf": time.Now().Add(time.Hour).Unix()},
		"wrong aud":      {"active": true, "aud": "https://other.example.test/mcp"},
		"wrong iss":      {"active": true, "iss": "https://evil.example.test"},
		"aud a number":   {"active": true, "aud": 7},
	}
	want := map[string]error{
		"inactive": oauth.ErrTokenInactive, "expired": oauth.ErrTokenExpired, "nbf ahead": oauth.ErrTokenNotYetValid,
		"wrong aud": oauth.ErrTokenAudience, "wrong iss": oauth.ErrTokenIssuer, "aud a number": oauth.ErrTokenMalformed,
		"unknown": oauth.ErrTokenInactive,
	}
	for tok, ans := range answers {
		is.Register(tok, ans)
	}
	for _, tok := range []string{"valid", "no aud, no iss", "aud list", "inactive", "expired", "nbf ahead", "wrong aud", "wrong iss", "aud a number", "unknown"} {
		p, err := v.VerifyToken(t.Context(), tok)
		if !errors.Is(err, want[tok]) || (want[tok] == nil) != (err == nil) {
			t.Errorf("%s: %v, want %v", tok, err, want[tok])
		}
		if tok == "valid" && (err != nil || p.Subject != "bob" || p.ClientID != "app" || p.Issuer != is.URL ||
			!slices.Equal(p.Scopes, []string{"a", "b"}) || p.Expiry.Unix() != exp) {
			t.Errorf("valid: %+v", p)
		}
		if tok == "no aud, no iss" && (err != nil || p.Issuer != is.URL) {
			t.Errorf("an answer with no iss: principal %+v, want the configured issuer", p)
		}
	}
}

// Active answers are reused until the token expires or MaxCacheAge
// passes; inactive ones are asked again.
func TestIntrospectionVerifier_caches(t *testing.T) {
	is := newTestIssuer(t)
	now := time.Now()
	clock := func() time.Time { return now }
	v := newIntrospectionVerifier(t, is, &oauth.IntrospectionOptions{Now: clock, MaxCacheAge: time.Minute, MaxCacheEntries: 2})
	is.Register("long", map[string]any{"active": true, "exp": now.Add(time.Hour).Unix()})
	is.Register("short", map[string]any{"active": true, "exp": now.Add(10 * time.Second).Unix()})
	ask := func(tok string, wantErr error, wantHits int32) {
		t.Helper()
		before := is.introspectHits.Load()
		if _, err := v.VerifyToken(t.Context(), tok); !errors.Is(err, wantErr) || (wantErr == nil) != (err == nil) {
			t.Errorf("%s: %v, want %v", tok, err, wantErr)
		}
		if got := is.introspectHits.Load() - before; got != wantHits {
			t.Errorf("%s: %d introspections, want %d", tok, got, wantHits)
		}
	}
	ask("long", nil, 1)
	ask("long", nil, 0)
	ask("short", nil, 1)
	ask("short", nil, 0)
	ask("gone", oauth.ErrTokenInactive, 1)
	ask("gone", oauth.ErrTokenInactive, 1)
	now = now.Add(45 * time.Second) // short expired, leeway included: asked again, and refused for its exp
	ask("short", oauth.ErrTokenExpired, 1)
	ask("long", nil, 0)
	now = now.Add(time.Minute) // past MaxCacheAge
	ask("long", nil, 1)
	// The cache holds at most MaxCacheEntries: a third token evicts one.
	is.Register("third", map[string]any{"active": true})
	is.Register("fourth", map[string]any{"active": true})
	ask("third", nil, 1)
	ask("fourth", nil, 1)
	before := is.introspectHits.Load()
	for _, tok := range []string{"long", "third", "fourth"} {
		v.VerifyToken(t.Context(), tok)
	}
	if got := is.introspectHits.Load() - before; got < 1 {
		t.Errorf("three tokens served from a cache of two")
	}
}

func TestIntrospectionVerifier_endpointFailureIsUnavailable(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.PostFormValue("token") {
		case "garbage":
			w.Write([]byte(`{"active": tru`))
		default:
			http.Error(w, "down", http.StatusBadGateway)
		}
	}))
	defer srv.Close()
	v, err := oauth.NewIntrospectionVerifier(t.Context(), &oauth.IntrospectionOptions{
		Endpoint: srv.URL, Audience: testResource, ClientID: testClientID, ClientSecret: testClientSecret,
		Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, tok := range []string{"any", "garbage"} {
		if _, err := v.VerifyToken(t.Context(), tok); !errors.Is(err, oauth.ErrUnavailable) || errors.Is(err, oauth.ErrInvalidToken) {
			t.Errorf("%s: %v, want ErrUnavailable", tok, err)
		}
	}
	srv.Close()
	if _, err := v.VerifyToken(t.Context(), "any"); !errors.Is(err, oauth.ErrUnavailable) {
		t.Errorf("endpoint closed: %v, want ErrUnavailable", err)
	}
}
