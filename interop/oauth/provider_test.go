package oauthinterop_test

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"log/slog"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/go-jose/go-jose/v4"
	"github.com/zitadel/oidc/v3/example/server/storage"
	"github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"
)

// The provider's clients. The resource server introspects as rsClient;
// the others get tokens by the client-credentials grant, each for the
// audiences of audiences.
const (
	rsClient, rsSecret = "rs", "rs-secret-never-logged"
	jwtApp             = "jwt-app"    // JWT access tokens for the resource
	opaqueApp          = "opaque-app" // opaque access tokens for the resource
	otherApp           = "other-app"  // JWT access tokens for another resource
	secondApp          = "second-app" // JWT access tokens for the resource, of secondSubject
	appSecret          = "app-secret-never-logged"
	subject            = "id1" // a user of storage.NewUserStore, for introspection's userinfo
	secondSubject      = "id2" // the subject of secondApp's tokens
	otherResource      = "https://other.example.test/mcp"
)

// provider is a zitadel/oidc OpenID provider over the library's example
// storage, with client-credentials clients of its own, audiences that
// name the resource (RFC 8707), and signing keys the test rotates.
type provider struct {
	*storage.Storage

	mu       sync.Mutex
	resource string    // the audience of the tokens; see SetResource
	keys     []*rsaKey // published; the last one signs
}

// rsaKey is an RS256 key: op.SigningKey with its private half, op.Key
// (what the JWKS publishes) with its public half.
type rsaKey struct {
	id   string
	priv *rsa.PrivateKey
}

func (k *rsaKey) ID() string                                  { return k.id }
func (k *rsaKey) SignatureAlgorithm() jose.SignatureAlgorithm { return jose.RS256 }
func (k *rsaKey) Algorithm() jose.SignatureAlgorithm          { return jose.RS256 }
func (k *rsaKey) Use() string                                 { return "sig" }
func (k *rsaKey) Key() any                                    { return k.priv }

type publicKey struct{ *rsaKey }

func (k publicKey) Key() any { return &k.priv.PublicKey }

// machine is a client of the client-credentials grant, with the kind of
// access token it gets.
type machine struct {
	op.Client
	tokens op.AccessTokenType
}

func (m machine) AccessTokenType() op.AccessTokenType { return m.tokens }
func (m machine) GrantTypes() []oidc.GrantType {
	return []oidc.GrantType{oidc.GrantTypeClientCredentials}
}

// startProvider starts the provider on loopback and returns it with its
// issuer URL; a second issuer URL serving the same storage (and so the
// same keys) is returned too, for tokens of the wrong issuer.
func startProvider(t *testing.T, resource string) (p *provider, issuer, otherIssuer string) {
	t.Helper()
	p = &provider{resource: resource}
	p.Rotate(false)
	clients := map[string]*storage.Client{rsClient: storage.WebClient(rsClient, rsSecret)}
	var urls []string
	for range 2 {
		srv := httptest.NewUnstartedServer(nil)
		url := "http://" + srv.Listener.Addr().String()
		if p.Storage == nil {
			p.Storage = storage.NewStorageWithClients(storage.NewUserStore(url), clients)
		}
		config := &op.Config{
			CryptoKey:                sha256.Sum256([]byte("interop test key " + strconv.Itoa(len(urls)))),
			DefaultLogoutRedirectURI: "/",
			CodeMethodS256:           true,
			AuthMethodPost:           true,
			GrantTypeRefreshToken:    true,
		}
		h, err := op.NewProvider(config, p, op.StaticIssuer(url), op.WithAllowInsecure(),
			op.WithLogger(slog.New(slog.DiscardHandler)))
		if err != nil {
			t.Fatalf("op.NewProvider: %v", err)
		}
		srv.Config.Handler = h
		srv.Start()
		t.Cleanup(srv.Close)
		urls = append(urls, url)
	}
	return p, urls[0], urls[1]
}

// SetResource makes resource the audience of the tokens issued from now
// on, for a resource server whose URL is known only once the provider
// runs.
func (p *provider) SetResource(resource string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.resource = resource
}

// Rotate makes a new key the signing key; with drop, it withdraws the
// keys published before from the JWKS.
func (p *provider) Rotate(drop bool) string {
	priv, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		panic(err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	k := &rsaKey{id: "key-" + strconv.Itoa(len(p.keys)+1) + "-" + rand.Text()[:6], priv: priv}
	if drop {
		p.keys = nil
	}
	p.keys = append(p.keys, k)
	return k.id
}

// current returns the signing key.
func (p *provider) current() *rsaKey {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.keys[len(p.keys)-1]
}

// SigningKey implements op.Storage: the newest key signs.
func (p *provider) SigningKey(context.Context) (op.SigningKey, error) { return p.current(), nil }

// SignatureAlgorithms implements op.Storage.
func (p *provider) SignatureAlgorithms(context.Context) ([]jose.SignatureAlgorithm, error) {
	return []jose.SignatureAlgorithm{jose.RS256}, nil
}

// KeySet implements op.Storage: the JWKS publishes every key kept.
func (p *provider) KeySet(context.Context) ([]op.Key, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var keys []op.Key
	for _, k := range p.keys {
		keys = append(keys, publicKey{k})
	}
	return keys, nil
}

// ClientCredentials implements op.ClientCredentialsStorage.
func (p *provider) ClientCredentials(_ context.Context, id, secret string) (op.Client, error) {
	if secret != appSecret {
		return nil, oidc.ErrInvalidClient()
	}
	kind := op.AccessTokenTypeJWT
	switch id {
	case jwtApp, otherApp, secondApp:
	case opaqueApp:
		kind = op.AccessTokenTypeBearer
	default:
		return nil, oidc.ErrInvalidClient()
	}
	return machine{Client: storage.WebClient(id, secret), tokens: kind}, nil
}

// GetPrivateClaimsFromScopes implements op.Storage: a JWT access token
// carries its scopes in the scope claim (RFC 9068 §2.2.3), which the
// library leaves to the storage to assert.
func (p *provider) GetPrivateClaimsFromScopes(ctx context.Context, userID, clientID string, scopes []string) (map[string]any, error) {
	claims, err := p.Storage.GetPrivateClaimsFromScopes(ctx, userID, clientID, scopes)
	if err != nil || len(scopes) == 0 {
		return claims, err
	}
	if claims == nil {
		claims = map[string]any{}
	}
	claims["scope"] = strings.Join(scopes, " ")
	return claims, nil
}

// ClientCredentialsTokenRequest implements op.ClientCredentialsStorage:
// the token names the resource (and rsClient, which introspects it) as
// its audience, or another resource for otherApp.
func (p *provider) ClientCredentialsTokenRequest(_ context.Context, id string, scopes []string) (op.TokenRequest, error) {
	p.mu.Lock()
	aud := []string{p.resource, rsClient}
	p.mu.Unlock()
	if id == otherApp {
		aud = []string{otherResource, rsClient}
	}
	sub := subject
	if id == secondApp {
		sub = secondSubject
	}
	return &oidc.JWTTokenRequest{Subject: sub, Audience: aud, Scopes: slices.Clone(scopes)}, nil
}
