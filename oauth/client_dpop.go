package oauth

import (
	"crypto/ecdsa"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// DPoP (RFC 9449): with AuthorizerOptions.DPoPKey, the token requests to
// an authorization server that supports ES256 proofs carry a proof of
// possession of the key, so the tokens it issues are bound to it; such a
// token (token_type DPoP) is sent with the DPoP scheme and a fresh proof
// naming the request's method and URL and the token's hash. A nonce a
// server demands (use_dpop_nonce, DPoP-Nonce) is remembered per origin
// and the request sent again once.

// dpopNonces are the latest nonces servers gave, by origin.
type dpopNonces struct {
	mu sync.Mutex
	m  map[string]string
}

func (n *dpopNonces) get(origin string) string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.m[origin]
}

// take records resp's DPoP-Nonce, if any, and reports whether there was
// one.
func (n *dpopNonces) take(origin string, resp *http.Response) bool {
	v := resp.Header.Get("DPoP-Nonce")
	if v == "" {
		return false
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.m == nil {
		n.m = map[string]string{}
	}
	n.m[origin] = v
	return true
}

// usesDPoP reports whether token requests to md's server carry proofs.
func (a *Authorizer) usesDPoP(md *ServerMetadata) bool {
	return a.o.DPoPKey != nil && slices.Contains(md.DPoPSigningAlgValuesSupported, "ES256")
}

// isDPoP reports whether t is a DPoP-bound token.
func isDPoP(t *Token) bool { return strings.EqualFold(t.TokenType, "DPoP") }

// dpopProof signs a proof for a request of method to u (its query and
// fragment left out), with the origin's nonce if any, and, when token is
// not empty, the token's hash (ath).
func (a *Authorizer) dpopProof(method string, req *http.Request, token string) (string, error) {
	key := a.o.DPoPKey
	u := *req.URL
	u.RawQuery, u.Fragment, u.RawFragment = "", "", ""
	claims := jwt.MapClaims{"jti": randomState(), "htm": method, "htu": u.String(), "iat": time.Now().Unix()}
	if nonce := a.nonces.get(origin(req)); nonce != "" {
		claims["nonce"] = nonce
	}
	if token != "" {
		sum := sha256.Sum256([]byte(token))
		claims["ath"] = base64.RawURLEncoding.EncodeToString(sum[:])
	}
	t := jwt.NewWithClaims(jwt.SigningMethodES256, claims)
	t.Header["typ"] = "dpop+jwt"
	t.Header["jwk"] = publicJWK(&key.PublicKey)
	return t.SignedString(key)
}

// publicJWK is the JWK of an ES256 public key (RFC 7518 §6.2.1).
func publicJWK(k *ecdsa.PublicKey) map[string]string {
	b, _ := k.Bytes() // 0x04 || X || Y, uncompressed
	n := (len(b) - 1) / 2
	enc := base64.RawURLEncoding.EncodeToString
	return map[string]string{"kty": "EC", "crv": "P-256", "x": enc(b[1 : 1+n]), "y": enc(b[1+n:])}
}

// origin is req's scheme and host.
func origin(req *http.Request) string { return req.URL.Scheme + "://" + req.URL.Host }

// dpopTokenTransport adds a proof to each token request, and sends it
// again once with the nonce an authorization server demands (RFC 9449
// §8).
type dpopTokenTransport struct {
	a    *Authorizer
	base http.RoundTripper
}

func (t *dpopTokenTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	for again := false; ; again = true {
		r := req.Clone(req.Context())
		if again {
			body, err := req.GetBody()
			if err != nil {
				return nil, err
			}
			r.Body = body
		}
		proof, err := t.a.dpopProof(req.Method, req, "")
		if err != nil {
			return nil, err
		}
		r.Header.Set("DPoP", proof)
		resp, err := t.base.RoundTrip(r)
		if err != nil || !t.a.nonces.take(origin(req), resp) || resp.StatusCode != http.StatusBadRequest || again || req.GetBody == nil {
			return resp, err
		}
		discard(resp)
	}
}
