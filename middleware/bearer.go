package middleware

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"strings"
)

// BearerPrincipal is the principal BearerToken's Authenticator gives a
// caller that presented the token.
const BearerPrincipal = "bearer"

// BearerToken returns an Authenticator that accepts exactly one token,
// presented as "Bearer <token>" (the scheme's case does not matter, as RFC
// 7235 says), and gives such a caller the principal BearerPrincipal. No
// credential is ErrNoCredentials; another scheme or another token is
// ErrInvalidCredentials. Tokens are compared in constant time, over their
// SHA-256 digests so that the token's length does not leak either. It
// panics if token is empty. The Authenticator is safe for concurrent use.
func BearerToken(token string) Authenticator {
	if token == "" {
		panic("middleware: BearerToken with an empty token")
	}
	return &bearer{want: sha256.Sum256([]byte(token))}
}

type bearer struct{ want [sha256.Size]byte }

func (b *bearer) Authenticate(_ context.Context, credential string) (any, error) {
	if credential == "" {
		return nil, ErrNoCredentials
	}
	tok, ok := bearerToken(credential)
	if !ok {
		return nil, ErrInvalidCredentials
	}
	got := sha256.Sum256([]byte(tok))
	if subtle.ConstantTimeCompare(got[:], b.want[:]) != 1 {
		return nil, ErrInvalidCredentials
	}
	return BearerPrincipal, nil
}

// bearerToken returns the token of a "Bearer <token>" credential: the
// scheme in any case, one or more spaces, then a non-empty token with no
// space in it.
func bearerToken(credential string) (string, bool) {
	const scheme = "Bearer "
	if len(credential) <= len(scheme) || !strings.EqualFold(credential[:len(scheme)], scheme) {
		return "", false
	}
	tok := strings.TrimLeft(credential[len(scheme):], " ")
	if tok == "" || strings.ContainsAny(tok, " \t") {
		return "", false
	}
	return tok, true
}
