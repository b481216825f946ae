package oauth

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"errors"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
)

// ErrAuthorization is what an Authorizer's errors wrap: no access token
// could be obtained, or the authorization server's answer was refused
// (a wrong state or issuer, metadata naming another issuer or resource).
// Its text never carries a token, a secret or an authorization code.
var ErrAuthorization = errors.New("oauth: authorization failed")

// Grant selects how an Authorizer obtains tokens.
type Grant int

const (
	// AuthorizationCode is the authorization code grant with PKCE, for a
	// client acting for a user (a RedirectHandler is required).
	AuthorizationCode Grant = iota
	// ClientCredentials is the client credentials grant, for a machine
	// client acting for itself: with ClientSecret, or with PrivateKey
	// (private_key_jwt, RFC 7523).
	ClientCredentials
	// JWTBearer is the JWT bearer grant (RFC 7523 §2.1): the client
	// presents the assertion AuthorizerOptions.Assertion returns (a
	// workload identity's JWT, or an enterprise identity provider's
	// ID-JAG: IDJAGAssertion), authenticating as ClientID.
	JWTBearer
)

// DefaultMaxStepUps is AuthorizerOptions.MaxStepUps' default.
const DefaultMaxStepUps = 2

// AuthorizerOptions configure an Authorizer. NewAuthorizer copies them.
type AuthorizerOptions struct {
	// Grant is how tokens are obtained (default AuthorizationCode).
	Grant Grant
	// Redirect takes the user to the authorization server and brings
	// the redirect back (AuthorizationCode only, required there).
	Redirect RedirectHandler
	// ClientID and ClientSecret are pre-registered client credentials
	// (the secret may be empty for a public client), used with the
	// authorization server ClientIssuer names, or with every one when it
	// is empty. Without them, or with another issuer, the client
	// identifies itself by ClientMetadataURL where the server supports
	// that, else registers dynamically (RFC 7591). Set ClientIssuer: a
	// server's metadata names the authorization server, and credentials
	// registered with one are not to be presented to another.
	ClientID, ClientSecret string
	// ClientIssuer is the issuer identifier of the authorization server
	// ClientID and ClientSecret were registered with ("": any).
	ClientIssuer string
	// TokenEndpointAuthMethod is how a pre-registered client
	// authenticates to the token endpoint: "client_secret_basic",
	// "client_secret_post", "private_key_jwt" or "none" (default: the
	// first the server supports of client_secret_basic and
	// client_secret_post for a client with a secret, private_key_jwt for
	// one with a PrivateKey, none otherwise).
	TokenEndpointAuthMethod string
	// PrivateKey signs the client assertions of private_key_jwt (RFC
	// 7523 §2.2) with SigningAlgorithm (a JWS name: "ES256", "RS256"…;
	// default ES256).
	PrivateKey       crypto.Signer
	SigningAlgorithm string
	// Assertion returns the JWT a JWTBearer grant presents to the
	// authorization server issuer for a token for resource (required
	// there). A failed grant is not retried with the same assertion.
	Assertion func(ctx context.Context, issuer, resource string) (string, error)
	// DPoPKey, if set, binds the tokens to it (RFC 9449 DPoP, ES256: a
	// P-256 key) where the authorization server supports that
	// (dpop_signing_alg_values_supported lists ES256): each token request
	// and each request with such a token carries a fresh proof of
	// possession, the server's nonces honoured.
	DPoPKey *ecdsa.PrivateKey
	// ClientMetadataURL is the https URL of the client's metadata
	// document, used as its client_id by servers that support client ID
	// metadata documents.
	ClientMetadataURL string
	// ClientName and ApplicationType ("native", the default, or "web")
	// are sent in a dynamic registration.
	ClientName, ApplicationType string
	// Scopes are asked for when neither the server's challenge nor its
	// metadata names any (default: none, the scope parameter left out).
	Scopes []string
	// MaxStepUps bounds the authorizations in a row that answer a 403
	// insufficient_scope challenge, with no request succeeding in between
	// (default DefaultMaxStepUps; negative: none): past it the 403 is the
	// answer.
	MaxStepUps int
	// Store keeps the tokens (nil: a MemoryTokenStore).
	Store TokenStore
	// HTTPClient sends the requests to the authorization server and the
	// metadata requests (nil: http.DefaultClient).
	HTTPClient *http.Client
	// Logger records each authorization's outcome, never a token, a
	// secret or a code (nil: slog.Default()).
	Logger *slog.Logger
}

// Authorizer obtains, stores and renews the access tokens an MCP client
// sends to a server that requires authorization, as the MCP authorization
// specification says (2025-06-18 onwards, 2026-07-28 included): Transport
// returns an http.RoundTripper that adds the token to each request and,
// on a 401 or a 403 insufficient_scope challenge, runs the flow and sends
// the request again. It is safe for concurrent use; one flow runs at a
// time.
//
// The flow: the challenge's resource_metadata (else RFC 9728's
// path-suffixed, then root, well-known URL) gives the protected resource
// metadata, whose resource must be the server's URL or a prefix of it;
// its first authorization server's metadata is read (Discover: RFC 8414,
// then OpenID Connect Discovery; it must name that issuer); the client is
// identified (pre-registered, a client ID metadata document, or dynamic
// registration, remembered per issuer); the scope is the challenge's,
// else the resource's scopes_supported, else Scopes, plus offline_access
// when the server lists it; then the authorization code grant with PKCE
// (S256, required of the server), state and RFC 9207's iss checked, the
// resource parameter (RFC 8707) sent in every authorization and token
// request. A token past its expiry is refreshed with its refresh token
// first. Machine clients use the client credentials grant (a secret or
// private_key_jwt) or the JWT bearer grant (a workload's JWT, an
// enterprise ID-JAG) instead; with a DPoPKey, tokens are bound to it.
type Authorizer struct {
	o       AuthorizerOptions
	flow    sync.Mutex // one flow at a time
	mu      sync.Mutex // guards the maps
	servers map[string]*ServerMetadata
	clients map[string]*registration // by issuer
	stepUps atomic.Int32
	nonces  dpopNonces
}

// NewAuthorizer returns an Authorizer with opts (nil: the defaults, for
// which a Redirect is missing).
func NewAuthorizer(opts *AuthorizerOptions) (*Authorizer, error) {
	a := &Authorizer{servers: map[string]*ServerMetadata{}, clients: map[string]*registration{}}
	if opts != nil {
		a.o = *opts
	}
	switch {
	case a.o.Grant == AuthorizationCode && a.o.Redirect == nil:
		return nil, errors.New("oauth: the authorization code grant needs a RedirectHandler")
	case a.o.Grant != AuthorizationCode && a.o.ClientID == "":
		return nil, errors.New("oauth: the client credentials and JWT bearer grants need a ClientID")
	case a.o.Grant == JWTBearer && a.o.Assertion == nil:
		return nil, errors.New("oauth: the JWT bearer grant needs an Assertion")
	}
	if a.o.MaxStepUps == 0 {
		a.o.MaxStepUps = DefaultMaxStepUps
	}
	if a.o.Store == nil {
		a.o.Store = &MemoryTokenStore{}
	}
	if a.o.HTTPClient == nil {
		a.o.HTTPClient = http.DefaultClient
	}
	if a.o.Logger == nil {
		a.o.Logger = slog.Default()
	}
	if a.o.ApplicationType == "" {
		a.o.ApplicationType = "native"
	}
	if a.o.SigningAlgorithm == "" {
		a.o.SigningAlgorithm = "ES256"
	}
	return a, nil
}

// metadata returns the metadata of the authorization server issuer,
// read once (Discover).
func (a *Authorizer) metadata(ctx context.Context, issuer string) (*ServerMetadata, error) {
	a.mu.Lock()
	md := a.servers[issuer]
	a.mu.Unlock()
	if md != nil {
		return md, nil
	}
	md, err := Discover(ctx, a.o.HTTPClient, issuer)
	if err != nil {
		return nil, err
	}
	a.mu.Lock()
	a.servers[issuer] = md
	a.mu.Unlock()
	return md, nil
}
