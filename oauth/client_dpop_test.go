package oauth_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/golang-jwt/jwt/v5"

	"github.com/mcpwire/mcpwire/oauth"
)

// dpopCheck checks the DPoP proofs of requests to one server (RFC 9449
// §4.3): signed by the key in its jwk header, typ dpop+jwt, the request's
// method and URL, a jti never seen, the token's hash if one is presented,
// and the server's nonce (a 400 or 401 use_dpop_nonce until it comes).
type dpopCheck struct {
	nonce string
	mu    sync.Mutex
	jtis  map[string]bool
	keys  map[string]bool // the jwk x of every proof
	// challenged is the body of the last request refused for its nonce;
	// retried is set when a request with that body is accepted.
	challenged string
	retried    bool
}

// verify returns the error of r's proof, for token ("" at the token
// endpoint); errNonce if only the nonce is missing.
func (d *dpopCheck) verify(r *http.Request, token string) error {
	var claims jwt.MapClaims
	_, err := jwt.ParseWithClaims(r.Header.Get("DPoP"), &claims, func(t *jwt.Token) (any, error) {
		jwk, _ := t.Header["jwk"].(map[string]any)
		x, _ := base64.RawURLEncoding.DecodeString(jwk["x"].(string))
		y, _ := base64.RawURLEncoding.DecodeString(jwk["y"].(string))
		d.mu.Lock()
		d.keys[jwk["x"].(string)] = true
		d.mu.Unlock()
		if t.Header["typ"] != "dpop+jwt" {
			return nil, errors.New("typ")
		}
		return ecdsa.ParseUncompressedPublicKey(elliptic.P256(), append(append([]byte{4}, x...), y...))
	}, jwt.WithValidMethods([]string{"ES256"}), jwt.WithIssuedAt())
	if err != nil {
		return err
	}
	url := "http://" + r.Host + r.URL.Path
	sum := sha256.Sum256([]byte(token))
	d.mu.Lock()
	defer d.mu.Unlock()
	jti, _ := claims["jti"].(string)
	switch {
	case claims["htm"] != r.Method || claims["htu"] != url || jti == "" || d.jtis[jti]:
		return errors.New("htm, htu or jti")
	case token != "" && claims["ath"] != base64.RawURLEncoding.EncodeToString(sum[:]):
		return errors.New("ath")
	}
	d.jtis[jti] = true
	if claims["nonce"] != d.nonce {
		return errNonce
	}
	return nil
}

var errNonce = errors.New("use_dpop_nonce")

// dpopResource accepts "Authorization: DPoP" with a valid proof, as a
// bearer token for next.
func (d *dpopCheck) dpopResource(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "DPoP ")
		if !ok {
			next.ServeHTTP(w, r)
			return
		}
		body := peekBody(r)
		switch err := d.verify(r, token); {
		case errors.Is(err, errNonce):
			d.mu.Lock()
			d.challenged = body
			d.mu.Unlock()
			w.Header().Set("DPoP-Nonce", d.nonce)
			w.Header().Set("WWW-Authenticate", `DPoP error="use_dpop_nonce"`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		case err != nil:
			http.Error(w, "bad proof: "+err.Error(), http.StatusBadRequest)
			return
		}
		d.mu.Lock()
		d.retried = d.retried || d.challenged != "" && body == d.challenged
		d.mu.Unlock()
		r.Header.Set("Authorization", "Bearer "+token)
		next.ServeHTTP(w, r)
	})
}

// With a DPoPKey, where the authorization server supports DPoP, the token
// request carries a proof (sent again with the nonce the server demands),
// the token is bound (token_type DPoP), and each MCP request presents it
// with the DPoP scheme and a fresh proof with its hash (sent again with
// the resource server's nonce).
func TestAuthorizer_dpop(t *testing.T) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	as := newTestAS(t)
	as.dpop = &dpopCheck{nonce: "as-nonce", jtis: map[string]bool{}, keys: map[string]bool{}}
	rs := &dpopCheck{nonce: "rs-nonce", jtis: map[string]bool{}, keys: map[string]bool{}}
	as.wrap = rs.dpopResource
	res := newProtectedMCP(t, as)
	served(t, res.endpoint, "2026-07-28", newAuthorizer(t, &oauth.AuthorizerOptions{
		Redirect: approve{}, ClientID: "app", ClientSecret: as.secret, DPoPKey: key}))
	as.mu.Lock()
	defer as.mu.Unlock()
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if !rs.retried {
		t.Error("the request refused for its nonce was not sent again with it")
	}
	if len(as.authorizes) != 1 || as.dpopTokens != 1 || len(as.tokenForms) != 1 || len(rs.jtis) < 2 || len(rs.keys) != 1 || len(as.dpop.keys) != 1 {
		t.Fatalf("%d authorizations, %d DPoP-bound tokens of %d, %d proofs accepted by the resource with %d keys, %d keys at the token endpoint",
			len(as.authorizes), as.dpopTokens, len(as.tokenForms), len(rs.jtis), len(rs.keys), len(as.dpop.keys))
	}
}
