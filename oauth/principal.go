package oauth

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/internal/principal"
)

// Principal is the caller an accepted access token stands for: what a
// TokenVerifier read from the token (a JWT's claims) or learned about it
// (an introspection response). It never holds the token itself. A
// Principal is not modified once a verifier returns it, and is then safe
// for concurrent reads.
type Principal struct {
	// Issuer is the authorization server that issued the token (iss).
	Issuer string
	// Subject is the resource owner (sub): a user, or the client itself
	// for a client-credentials token. It may be empty when the issuer did
	// not say.
	Subject string
	// ClientID is the OAuth client the token was issued to (client_id,
	// else azp), or "" when the issuer did not say.
	ClientID string
	// Scopes are the scopes the token grants, in the order the issuer
	// listed them.
	Scopes []string
	// Audience lists the resources the token was issued for (aud).
	Audience []string
	// Expiry is when the token expires (exp); zero when it does not say.
	Expiry time.Time
}

// String returns the principal's identity, issuer and subject (the client
// ID when there is no subject): equal for every token of the same caller
// from the same issuer, so a session can be bound to it and counted under
// it. It holds nothing secret.
func (p *Principal) String() string {
	who := p.Subject
	if who == "" {
		who = "client:" + p.ClientID
	}
	return p.Issuer + " " + who
}

// HasScope reports whether the token grants scope.
func (p *Principal) HasScope(scope string) bool {
	return slices.Contains(p.Scopes, scope)
}

// MissingScopes returns those of scopes the token does not grant, in the
// order given, or nil when it grants them all.
func (p *Principal) MissingScopes(scopes ...string) []string {
	var missing []string
	for _, s := range scopes {
		if !p.HasScope(s) && !slices.Contains(missing, s) {
			missing = append(missing, s)
		}
	}
	return missing
}

// ContextWithPrincipal returns a copy of ctx carrying p, where
// FromContext and middleware.PrincipalFromContext find it. RequireBearer
// and Bearer.Authenticate's callers put it there; call it yourself only
// to run a handler as p (in a test, say).
func ContextWithPrincipal(ctx context.Context, p *Principal) context.Context {
	return principal.With(ctx, p)
}

// FromContext returns the Principal of the request ctx belongs to: an
// HTTP handler behind Bearer.Wrap, or a JSON-RPC or MCP handler behind
// middleware.Auth(bearer, …). ok is false when the request was not
// authenticated by this package (no principal, or another kind).
func FromContext(ctx context.Context) (p *Principal, ok bool) {
	v, _ := principal.From(ctx)
	p, ok = v.(*Principal)
	return p, ok && p != nil
}

// ErrNoPrincipal is RequireScopes' answer when ctx carries no Principal:
// a -32009 error (compare with errors.Is), sent to the peer as it is when
// a handler returns it.
var ErrNoPrincipal = codec.NewError(codec.CodeUnauthorized, "Unauthorized: an access token is required")

// RequireScopes checks that the caller of the request ctx belongs to was
// granted every one of scopes. It returns nil when it was;
// ErrNoPrincipal when ctx carries no Principal; otherwise a *ScopeError
// naming the scopes that are missing. A handler can return that error as
// it is: the peer gets -32010 with data {"scope": "<missing scopes>"}.
func RequireScopes(ctx context.Context, scopes ...string) error {
	p, ok := FromContext(ctx)
	if !ok {
		return ErrNoPrincipal
	}
	if missing := p.MissingScopes(scopes...); missing != nil {
		return &ScopeError{Missing: missing}
	}
	return nil
}

// ScopeError says that an access token lacks scopes a request needs.
// Over HTTP, Bearer.Refuse answers it 403 with error="insufficient_scope"
// and scope="<Missing>" (RFC 6750 §3.1), which tells the client what to
// ask its authorization server for (step-up). As a JSON-RPC error it is
// -32010 (errors.As finds the *codec.Error it wraps) with data {"scope":
// "<Missing, space-separated>"}.
type ScopeError struct {
	// Missing lists the scopes the token does not grant, at least one.
	Missing []string
}

// Error returns a message naming the missing scopes.
func (e *ScopeError) Error() string {
	return "oauth: insufficient scope: missing " + strings.Join(e.Missing, " ")
}

// Unwrap returns the -32010 error a JSON-RPC peer is sent.
func (e *ScopeError) Unwrap() error {
	scope := strings.Join(e.Missing, " ")
	return codec.NewError(codec.CodeForbidden, "Forbidden: the access token lacks the scope "+scope).
		WithData(map[string]string{"scope": scope})
}
