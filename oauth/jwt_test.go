package oauth_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/mcpwire/mcpwire/oauth"
)

// newJWTVerifier returns a verifier of is's tokens for testResource, its
// key set found by discovery, closed at the end of the test.
func newJWTVerifier(t *testing.T, is *testIssuer, opts *oauth.JWTOptions) *oauth.JWTVerifier {
	t.Helper()
	o := oauth.JWTOptions{}
	if opts != nil {
		o = *opts
	}
	o.Issuer, o.Audience = is.URL, testResource
	v, err := oauth.NewJWTVerifier(t.Context(), &o)
	if err != nil {
		t.Fatalf("NewJWTVerifier: %v", err)
	}
	t.Cleanup(func() { v.Close() })
	return v
}

func TestJWTVerifier_checksEachClaim(t *testing.T) {
	is := newTestIssuer(t)
	v := newJWTVerifier(t, is, nil)
	with := func(k string, val any) jwt.MapClaims {
		c := is.claims("tools:read")
		if val == nil {
			delete(c, k)
		} else {
			c[k] = val
		}
		return c
	}
	hour := time.Hour
	for _, tc := range []struct {
		name  string
		token string
		want  error
	}{
		{"valid", is.Sign(is.claims("tools:read")), nil},
		{"expired", is.Sign(with("exp", time.Now().Add(-hour).Unix())), oauth.ErrTokenExpired},
		{"expired within leeway", is.Sign(with("exp", time.Now().Add(-5*time.Second).Unix())), nil},
		{"no exp", is.Sign(with("exp", nil)), oauth.ErrTokenMalformed},
		{"nbf ahead", is.Sign(with("nbf", time.Now().Add(hour).Unix())), oauth.ErrTokenNotYetValid},
		{"iat ahead", is.Sign(with("iat", time.Now().Add(hour).Unix())), oauth.ErrTokenNotYetValid},
		{"wrong audience", is.Sign(with("aud", "https://other.example.test/mcp")), oauth.ErrTokenAudience},
		{"audience among others", is.Sign(with("aud", []string{"x", testResource})), nil},
		{"no audience (a required claim)", is.Sign(with("aud", nil)), oauth.ErrTokenMalformed},
		{"no issuer (a required claim)", is.Sign(with("iss", nil)), oauth.ErrTokenMalformed},
		{"wrong issuer", is.Sign(with("iss", "https://evil.example.test")), oauth.ErrTokenIssuer},
		{"alg none", unsigned(t, "k1", is.claims("tools:read")), oauth.ErrTokenSignature},
		{"HS256 with the public key", hs256(t, "k1", is.PublicKeyBytes(), is.claims("tools:read")), oauth.ErrTokenSignature},
		{"foreign key under a known kid", foreignES256(t, "k1", is.claims("tools:read")), oauth.ErrTokenSignature},
		{"not a JWT", "opaque-token", oauth.ErrTokenMalformed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := v.VerifyToken(t.Context(), tc.token)
			if !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
				t.Fatalf("VerifyToken = %v, want %v", err, tc.want)
			}
			if err != nil && !errors.Is(err, oauth.ErrInvalidToken) {
				t.Errorf("%v does not wrap ErrInvalidToken", err)
			}
			if err == nil && (p.Subject != "user-1" || p.Issuer != is.URL || p.ClientID != "app-1" ||
				!slices.Equal(p.Scopes, []string{"tools:read"}) || p.Expiry.IsZero()) {
				t.Errorf("principal = %+v", p)
			}
		})
	}
}

func TestJWTVerifier_readsScpClaims(t *testing.T) {
	is := newTestIssuer(t)
	v := newJWTVerifier(t, is, nil)
	for _, scp := range []any{"a b", []string{"a", "b"}} {
		c := is.claims("")
		delete(c, "scope")
		c["scp"] = scp
		p, err := v.VerifyToken(t.Context(), is.Sign(c))
		if err != nil || !slices.Equal(p.Scopes, []string{"a", "b"}) {
			t.Errorf("scp %v: principal %+v, err %v", scp, p, err)
		}
	}
	c := is.claims("")
	delete(c, "scope")
	c["scp"] = 7
	if _, err := v.VerifyToken(t.Context(), is.Sign(c)); !errors.Is(err, oauth.ErrTokenMalformed) {
		t.Errorf("scp 7: err %v, want ErrTokenMalformed", err)
	}
}

// A key rotated in at the issuer is fetched on the first token that names
// it, without a restart; a second unknown kid within the interval is
// refused without another fetch.
func TestJWTVerifier_followsKeyRotation(t *testing.T) {
	is := newTestIssuer(t)
	v := newJWTVerifier(t, is, &oauth.JWTOptions{UnknownKeyRefreshInterval: time.Hour})
	if _, err := v.VerifyToken(t.Context(), is.Sign(is.claims("s"))); err != nil {
		t.Fatalf("before rotation: %v", err)
	}
	fetched := is.jwksHits.Load()
	is.Rotate("k2", true)
	if _, err := v.VerifyToken(t.Context(), is.Sign(is.claims("s"))); err != nil {
		t.Fatalf("after rotation: %v", err)
	}
	if got := is.jwksHits.Load(); got != fetched+1 {
		t.Errorf("the key set was fetched %d times for the new kid, want 1", got-fetched)
	}
	is.Rotate("k3", true)
	if _, err := v.VerifyToken(t.Context(), is.Sign(is.claims("s"))); !errors.Is(err, oauth.ErrTokenSignature) {
		t.Errorf("a second new kid within the interval: %v, want ErrTokenSignature", err)
	}
	if got := is.jwksHits.Load(); got != fetched+1 {
		t.Errorf("the key set was fetched again within the rate limit (%d fetches)", got-fetched)
	}
}

func TestJWTVerifier_clockAndOptions(t *testing.T) {
	is := newTestIssuer(t)
	tok := is.Sign(is.claims("s"))
	later := func() time.Time { return time.Now().Add(10 * time.Minute) }
	v := newJWTVerifier(t, is, &oauth.JWTOptions{Now: later, JWKSURL: is.URL + "/jwks"})
	if _, err := v.VerifyToken(t.Context(), tok); !errors.Is(err, oauth.ErrTokenExpired) {
		t.Errorf("10 minutes later: %v, want ErrTokenExpired", err)
	}
	for _, alg := range []string{"none", "HS256", "hs512"} {
		_, err := oauth.NewJWTVerifier(context.Background(), &oauth.JWTOptions{
			Issuer: is.URL, Audience: testResource, Algorithms: []string{"RS256", alg},
		})
		if err == nil {
			t.Errorf("NewJWTVerifier accepted the algorithm %q", alg)
		}
	}
	if _, err := oauth.NewJWTVerifier(t.Context(), &oauth.JWTOptions{Issuer: is.URL}); err == nil {
		t.Error("NewJWTVerifier accepted no Audience")
	}
}
