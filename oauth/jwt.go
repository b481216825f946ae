package oauth

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/MicahParks/keyfunc/v3"
	"github.com/golang-jwt/jwt/v5"
	"golang.org/x/time/rate"
)

// Defaults of JWTOptions.
const (
	// DefaultLeeway is the clock skew allowed on exp, nbf and iat.
	DefaultLeeway = 30 * time.Second
	// DefaultKeyRefreshInterval is how often the issuer's key set is
	// fetched again, whatever the tokens say.
	DefaultKeyRefreshInterval = time.Hour
	// DefaultUnknownKeyRefreshInterval is the least time between two
	// fetches of the key set caused by a token signed with a key ID
	// (kid) the cached set does not hold.
	DefaultUnknownKeyRefreshInterval = 10 * time.Second
)

// unknownKeyWaitMax is the longest a token with an unknown kid waits for
// the rate limit to allow a fetch of the key set.
const unknownKeyWaitMax = time.Second

// DefaultAlgorithms is the allow-list of signature algorithms a
// JWTVerifier accepts when JWTOptions.Algorithms is empty: the asymmetric
// ones of RFC 7518 and RFC 8037. "none" and the HMAC algorithms (HS256…)
// are never accepted: an HMAC key would be the issuer's public key, which
// anyone can read.
var DefaultAlgorithms = []string{"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"}

// JWTOptions configure a JWTVerifier. Issuer and Audience are required.
type JWTOptions struct {
	// Issuer is the authorization server's issuer identifier; a token's
	// iss must equal it.
	Issuer string
	// Audience is this resource's identifier (ResourceMetadata.Resource);
	// a token's aud must contain it (RFC 8707, RFC 9068 §4).
	Audience string
	// JWKSURL is the URL of the issuer's key set (JWKS). Empty: the
	// jwks_uri of the issuer's metadata (Discover).
	JWKSURL string
	// Algorithms is the allow-list of signature algorithms (default
	// DefaultAlgorithms). It may not hold "none" or an HMAC algorithm.
	Algorithms []string
	// Leeway is the clock skew allowed on exp, nbf and iat (default
	// DefaultLeeway; negative: none).
	Leeway time.Duration
	// KeyRefreshInterval and UnknownKeyRefreshInterval: see
	// DefaultKeyRefreshInterval and DefaultUnknownKeyRefreshInterval
	// (zero: those defaults). A token with an unknown kid arriving sooner
	// than UnknownKeyRefreshInterval after the last such fetch is refused
	// (at once, unless the next fetch is due within a second, which it
	// waits for): a flood of forged key IDs costs the issuer at most one
	// fetch per interval and holds no request long.
	KeyRefreshInterval, UnknownKeyRefreshInterval time.Duration
	// HTTPClient fetches the metadata and the key set (nil:
	// http.DefaultClient).
	HTTPClient *http.Client
	// Logger receives a record when the key set cannot be fetched (nil:
	// slog.Default()).
	Logger *slog.Logger
	// Now is the verifier's clock (nil: time.Now).
	Now func() time.Time
}

// JWTVerifier is a TokenVerifier of JWT access tokens (RFC 9068) signed
// by an authorization server whose key set it fetches, caches and
// refreshes. It checks, in this order: the token's syntax; its alg
// against the allow-list; its signature with the key its kid names (a kid
// the cached set lacks makes it fetch the set again, rate-limited, so a
// key rotated in is found without a restart); exp, nbf and iat with the
// leeway; iss; aud. The scopes come from the scope claim (space-separated)
// or scp (a string or an array). A token whose key cannot be found — the
// key set unreachable included — is refused with ErrTokenSignature, not
// ErrUnavailable: keys fetched before keep serving the tokens they sign.
// It is safe for concurrent use; Close stops its key refresh.
type JWTVerifier struct {
	opts   JWTOptions
	keys   keyfunc.Keyfunc
	parser *jwt.Parser
	stop   context.CancelFunc
}

// NewJWTVerifier returns a JWTVerifier for opts (copied). When JWKSURL is
// empty it discovers it from the issuer's metadata, within ctx; the key
// set is then fetched in the background until Close, its first fetch
// before NewJWTVerifier returns (a failure there is logged, not returned:
// the set is fetched again when the first token arrives).
func NewJWTVerifier(ctx context.Context, opts *JWTOptions) (*JWTVerifier, error) {
	if opts == nil || opts.Issuer == "" || opts.Audience == "" {
		return nil, errors.New("oauth: NewJWTVerifier needs an Issuer and an Audience")
	}
	o := *opts
	o.Algorithms = slices.Clone(o.Algorithms)
	if len(o.Algorithms) == 0 {
		o.Algorithms = slices.Clone(DefaultAlgorithms)
	}
	for _, a := range o.Algorithms {
		if strings.EqualFold(a, "none") || strings.HasPrefix(strings.ToUpper(a), "HS") {
			return nil, fmt.Errorf("oauth: the algorithm %q may not verify access tokens", a)
		}
	}
	setDefaults(&o.Leeway, &o.HTTPClient, &o.Logger, &o.Now)
	if o.KeyRefreshInterval <= 0 {
		o.KeyRefreshInterval = DefaultKeyRefreshInterval
	}
	if o.UnknownKeyRefreshInterval <= 0 {
		o.UnknownKeyRefreshInterval = DefaultUnknownKeyRefreshInterval
	}
	if o.JWKSURL == "" {
		var err error
		o.JWKSURL, err = discoverURL(ctx, o.HTTPClient, o.Issuer, "jwks_uri",
			func(md *ServerMetadata) string { return md.JWKSURI })
		if err != nil {
			return nil, err
		}
	}
	bg, stop := context.WithCancel(context.Background())
	logger := o.Logger
	keys, err := keyfunc.NewDefaultOverrideCtx(bg, []string{o.JWKSURL}, keyfunc.Override{
		Client:          o.HTTPClient,
		RefreshInterval: o.KeyRefreshInterval,
		// One fetch per interval for unknown key IDs; a token that would
		// wait longer than unknownKeyWaitMax for it is refused at once
		// (the limiter knows when its next fetch is due).
		RefreshUnknownKID: rate.NewLimiter(rate.Every(o.UnknownKeyRefreshInterval), 1),
		RateLimitWaitMax:  unknownKeyWaitMax,
		RefreshErrorHandlerFunc: func(u string) func(context.Context, error) {
			return func(ctx context.Context, err error) {
				logger.LogAttrs(ctx, slog.LevelError, "oauth: cannot fetch the issuer's key set",
					slog.String("url", u), slog.String("err", err.Error()))
			}
		},
	})
	if err != nil {
		stop()
		return nil, fmt.Errorf("oauth: key set %s: %w", o.JWKSURL, err)
	}
	v := &JWTVerifier{opts: o, keys: keys, stop: stop}
	v.parser = jwt.NewParser(
		jwt.WithValidMethods(o.Algorithms),
		jwt.WithIssuer(o.Issuer),
		jwt.WithAudience(o.Audience),
		jwt.WithLeeway(o.Leeway),
		jwt.WithExpirationRequired(),
		jwt.WithIssuedAt(),
		jwt.WithTimeFunc(o.Now),
	)
	return v, nil
}

// Close stops the background refresh of the key set. The verifier keeps
// verifying with the keys it holds.
func (v *JWTVerifier) Close() error {
	v.stop()
	return nil
}

// accessClaims are the claims of an access token a JWTVerifier reads.
type accessClaims struct {
	jwt.RegisteredClaims
	Scope    string `json:"scope,omitempty"`
	Scp      any    `json:"scp,omitempty"`
	ClientID string `json:"client_id,omitempty"`
	AZP      string `json:"azp,omitempty"`
}

// VerifyToken implements TokenVerifier.
func (v *JWTVerifier) VerifyToken(ctx context.Context, token string) (*Principal, error) {
	var c accessClaims
	if _, err := v.parser.ParseWithClaims(token, &c, v.keys.KeyfuncCtx(ctx)); err != nil {
		return nil, jwtReason(err)
	}
	scopes, ok := claimScopes(c.Scope, c.Scp)
	if !ok {
		return nil, ErrTokenMalformed
	}
	p := &Principal{
		Issuer:   c.Issuer,
		Subject:  c.Subject,
		ClientID: c.ClientID,
		Scopes:   scopes,
		Audience: c.Audience,
	}
	if p.ClientID == "" {
		p.ClientID = c.AZP
	}
	if c.ExpiresAt != nil {
		p.Expiry = c.ExpiresAt.Time
	}
	return p, nil
}

// jwtReason maps a golang-jwt error to the ErrToken… value to answer.
func jwtReason(err error) error {
	switch {
	case errors.Is(err, jwt.ErrTokenExpired):
		return ErrTokenExpired
	case errors.Is(err, jwt.ErrTokenNotValidYet), errors.Is(err, jwt.ErrTokenUsedBeforeIssued):
		return ErrTokenNotYetValid
	case errors.Is(err, jwt.ErrTokenInvalidIssuer):
		return ErrTokenIssuer
	case errors.Is(err, jwt.ErrTokenInvalidAudience):
		return ErrTokenAudience
	case errors.Is(err, jwt.ErrTokenSignatureInvalid), errors.Is(err, jwt.ErrTokenUnverifiable):
		return ErrTokenSignature
	}
	return ErrTokenMalformed
}

// claimScopes returns the scopes of a token's scope claim (RFC 9068:
// space-separated) or, without one, of scp (a string or an array of
// strings, as some issuers send); ok is false when scp is of another type.
func claimScopes(scope string, scp any) (scopes []string, ok bool) {
	if scope != "" {
		return strings.Fields(scope), true
	}
	switch s := scp.(type) {
	case nil:
		return nil, true
	case string:
		return strings.Fields(s), true
	case []any:
		for _, e := range s {
			str, ok := e.(string)
			if !ok {
				return nil, false
			}
			scopes = append(scopes, str)
		}
		return scopes, true
	}
	return nil, false
}
