package oauth_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// testIssuer is a small authorization server for the package's own tests:
// RFC 8414 metadata, a JWKS endpoint whose keys the test rotates, and an
// RFC 7662 introspection endpoint over tokens the test registers. The
// tests against a real provider are in interop/oauth (a module of its
// own).
type testIssuer struct {
	t   *testing.T
	srv *httptest.Server
	URL string

	mu     sync.Mutex
	keys   map[string]*rsa.PrivateKey // by kid: those the JWKS publishes
	signer string                     // the kid tokens are signed with
	opaque map[string]map[string]any  // introspection answers, by token

	jwksHits, introspectHits atomic.Int32
}

const (
	testClientID     = "rs-client"
	testClientSecret = "rs-secret-do-not-log"
	testResource     = "https://mcp.example.test/mcp"
)

func newTestIssuer(t *testing.T) *testIssuer {
	t.Helper()
	is := &testIssuer{t: t, keys: map[string]*rsa.PrivateKey{}, opaque: map[string]map[string]any{}}
	is.Rotate("k1", false)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, map[string]any{
			"issuer":                 is.URL,
			"jwks_uri":               is.URL + "/jwks",
			"introspection_endpoint": is.URL + "/introspect",
			"token_endpoint":         is.URL + "/token",
		})
	})
	mux.HandleFunc("GET /jwks", func(w http.ResponseWriter, r *http.Request) {
		is.jwksHits.Add(1)
		is.mu.Lock()
		defer is.mu.Unlock()
		var keys []map[string]any
		for kid, k := range is.keys {
			keys = append(keys, map[string]any{
				"kty": "RSA", "kid": kid, "use": "sig", "alg": "RS256",
				"n": b64(k.N.Bytes()), "e": b64(big.NewInt(int64(k.E)).Bytes()),
			})
		}
		writeJSON(w, map[string]any{"keys": keys})
	})
	mux.HandleFunc("POST /introspect", func(w http.ResponseWriter, r *http.Request) {
		is.introspectHits.Add(1)
		id, secret, ok := r.BasicAuth()
		if !ok || id != testClientID || secret != testClientSecret {
			http.Error(w, "client authentication failed", http.StatusUnauthorized)
			return
		}
		is.mu.Lock()
		ans, ok := is.opaque[r.PostFormValue("token")]
		is.mu.Unlock()
		if !ok {
			ans = map[string]any{"active": false}
		}
		writeJSON(w, ans)
	})
	is.srv = httptest.NewServer(mux)
	is.URL = is.srv.URL
	t.Cleanup(is.srv.Close)
	return is
}

// Rotate adds a new signing key kid to the JWKS and signs with it from
// now on; with drop, the keys published before are withdrawn.
func (is *testIssuer) Rotate(kid string, drop bool) {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		is.t.Fatal(err)
	}
	is.mu.Lock()
	defer is.mu.Unlock()
	if drop {
		clear(is.keys)
	}
	is.keys[kid] = k
	is.signer = kid
}

// claims returns valid claims for testResource, granting scope.
func (is *testIssuer) claims(scope string) jwt.MapClaims {
	now := time.Now()
	return jwt.MapClaims{
		"iss": is.URL, "sub": "user-1", "aud": testResource, "client_id": "app-1",
		"scope": scope, "iat": now.Unix(), "exp": now.Add(5 * time.Minute).Unix(),
	}
}

// Sign returns claims signed RS256 with the current key.
func (is *testIssuer) Sign(claims jwt.MapClaims) string {
	is.mu.Lock()
	kid, key := is.signer, is.keys[is.signer]
	is.mu.Unlock()
	tok := jwt.NewWithClaims(jwt.SigningMethodRS256, claims)
	tok.Header["kid"] = kid
	s, err := tok.SignedString(key)
	if err != nil {
		is.t.Fatal(err)
	}
	return s
}

// PublicKeyBytes returns the DER of the current key's public half: what an
// attacker signs an HS256 token with.
func (is *testIssuer) PublicKeyBytes() []byte {
	is.mu.Lock()
	defer is.mu.Unlock()
	return is.keys[is.signer].N.Bytes()
}

// Register makes token an opaque token whose introspection answer is ans.
func (is *testIssuer) Register(token string, ans map[string]any) {
	is.mu.Lock()
	defer is.mu.Unlock()
	is.opaque[token] = ans
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

// foreignES256 returns a token signed by a key the issuer never published,
// claiming the issuer's current kid.
func foreignES256(t *testing.T, kid string, claims jwt.MapClaims) string {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tok := jwt.NewWithClaims(jwt.SigningMethodES256, claims)
	tok.Header["kid"] = kid
	s, err := tok.SignedString(k)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// unsigned returns a token with alg "none" and the given kid.
func unsigned(t *testing.T, kid string, claims jwt.MapClaims) string {
	tok := jwt.NewWithClaims(jwt.SigningMethodNone, claims)
	tok.Header["kid"] = kid
	s, err := tok.SignedString(jwt.UnsafeAllowNoneSignatureType)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// hs256 returns a token signed HS256 with secret and the given kid.
func hs256(t *testing.T, kid string, secret []byte, claims jwt.MapClaims) string {
	tok := jwt.NewWithClaims(jwt.SigningMethodHS256, claims)
	tok.Header["kid"] = kid
	s, err := tok.SignedString(secret)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
