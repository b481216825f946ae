package oauth

import (
	"context"
	"sync"

	"golang.org/x/oauth2"
)

// Token is an access token an Authorizer obtained, with what it needs to
// use and renew it.
type Token struct {
	// Token is the access token, its expiry and its refresh token, if
	// any.
	*oauth2.Token
	// Issuer is the issuer identifier of the authorization server that
	// issued the token.
	Issuer string
	// Resource is the resource the token was issued for (RFC 8707): the
	// resource identifier of the protected resource metadata.
	Resource string
	// Scope is the space-separated scope granted: the token response's,
	// else the one asked for ("" when none was named).
	Scope string
}

// TokenStore keeps an Authorizer's tokens, one per MCP server, keyed by
// the server's URL (scheme, host and path, no query). A store backed by
// the user's keychain or a file lets a token outlive the process.
//
// Token returns nil and no error when the store holds no token for key.
// Implementations must be safe for concurrent use. Tokens are secrets:
// a store must not log them.
type TokenStore interface {
	Token(ctx context.Context, key string) (*Token, error)
	SetToken(ctx context.Context, key string, t *Token) error
}

// MemoryTokenStore is a TokenStore in the process's memory, an
// Authorizer's default. Its zero value is ready to use; it is safe for
// concurrent use.
type MemoryTokenStore struct {
	mu     sync.Mutex
	tokens map[string]*Token
}

// Token returns the token stored for key, or nil.
func (s *MemoryTokenStore) Token(_ context.Context, key string) (*Token, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tokens[key], nil
}

// SetToken stores t for key; a nil t removes it.
func (s *MemoryTokenStore) SetToken(_ context.Context, key string, t *Token) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if t == nil {
		delete(s.tokens, key)
		return nil
	}
	if s.tokens == nil {
		s.tokens = map[string]*Token{}
	}
	s.tokens[key] = t
	return nil
}
