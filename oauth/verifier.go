package oauth

import (
	"context"
	"errors"
	"fmt"
)

// TokenVerifier checks an access token and returns the Principal it stands
// for. token is the bare token (what follows "Bearer "), never empty.
//
// An error says why the token is refused: one that wraps ErrInvalidToken
// (one of the ErrToken… values, which all do) for a token that is not
// accepted — answered 401 with error="invalid_token" — or one that wraps
// ErrUnavailable when the token could not be checked at all (the
// authorization server or its keys cannot be reached) — answered 503,
// since asking the user to sign in again would not help. Any other error
// is answered as ErrInvalidToken. Errors never carry the token's text.
//
// Implementations must be safe for concurrent use.
type TokenVerifier interface {
	VerifyToken(ctx context.Context, token string) (*Principal, error)
}

// VerifierFunc adapts a function to TokenVerifier.
type VerifierFunc func(ctx context.Context, token string) (*Principal, error)

// VerifyToken calls f.
func (f VerifierFunc) VerifyToken(ctx context.Context, token string) (*Principal, error) {
	return f(ctx, token)
}

// Errors a TokenVerifier returns; compare with errors.Is. Every ErrToken…
// value wraps ErrInvalidToken.
var (
	// ErrInvalidToken: the token is not accepted.
	ErrInvalidToken = errors.New("oauth: invalid access token")
	// ErrUnavailable: the token could not be checked now.
	ErrUnavailable = errors.New("oauth: the access token cannot be checked now")

	// ErrTokenMalformed: not a token this verifier can read.
	ErrTokenMalformed = fmt.Errorf("%w: malformed", ErrInvalidToken)
	// ErrTokenSignature: the signature does not verify with any of the
	// issuer's keys, or uses an algorithm outside the allow-list.
	ErrTokenSignature = fmt.Errorf("%w: bad signature or algorithm", ErrInvalidToken)
	// ErrTokenExpired: the token's exp has passed (beyond the leeway).
	ErrTokenExpired = fmt.Errorf("%w: expired", ErrInvalidToken)
	// ErrTokenNotYetValid: the token's nbf or iat is still to come.
	ErrTokenNotYetValid = fmt.Errorf("%w: not valid yet", ErrInvalidToken)
	// ErrTokenIssuer: the token was issued by another authorization
	// server.
	ErrTokenIssuer = fmt.Errorf("%w: wrong issuer", ErrInvalidToken)
	// ErrTokenAudience: the token was issued for another resource (RFC
	// 8707).
	ErrTokenAudience = fmt.Errorf("%w: not issued for this resource", ErrInvalidToken)
	// ErrTokenInactive: the authorization server says the token is not
	// active (RFC 7662: revoked, expired or unknown).
	ErrTokenInactive = fmt.Errorf("%w: not active", ErrInvalidToken)
)

// reasons lists the ErrToken… values, most specific first: the one an
// error wraps is what a refusal's error_description and the log say.
var reasons = []error{
	ErrTokenExpired, ErrTokenNotYetValid, ErrTokenIssuer, ErrTokenAudience,
	ErrTokenSignature, ErrTokenInactive, ErrTokenMalformed,
}

// reason returns the ErrToken… value err wraps, or ErrInvalidToken.
func reason(err error) error {
	for _, r := range reasons {
		if errors.Is(err, r) {
			return r
		}
	}
	return ErrInvalidToken
}
