package oauth

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
)

// Defaults of IntrospectionOptions.
const (
	// DefaultMaxCacheAge bounds how long an introspection answer is
	// reused: a token revoked at the authorization server is still
	// accepted that long at most.
	DefaultMaxCacheAge = time.Minute
	// DefaultMaxCacheEntries bounds the tokens whose answers are kept.
	DefaultMaxCacheEntries = 10000
)

// IntrospectionOptions configure an IntrospectionVerifier. Issuer (or
// Endpoint), Audience, ClientID and ClientSecret are required.
type IntrospectionOptions struct {
	// Issuer is the authorization server's issuer identifier: when the
	// answer names an iss, it must equal it.
	Issuer string
	// Endpoint is the introspection endpoint's URL. Empty: the
	// introspection_endpoint of the issuer's metadata (Discover).
	Endpoint string
	// Audience is this resource's identifier: when the answer names an
	// aud, it must contain it. (The authorization server decides for
	// tokens whose answer names none: it knows who is asking.)
	Audience string
	// ClientID and ClientSecret authenticate this resource server to the
	// endpoint (client_secret_basic, RFC 6749 §2.3.1).
	ClientID, ClientSecret string
	// MaxCacheAge and MaxCacheEntries bound the cache of active answers
	// (defaults DefaultMaxCacheAge, DefaultMaxCacheEntries; a negative
	// MaxCacheAge turns the cache off). An answer is reused until the
	// token's exp or MaxCacheAge, whichever comes first. Inactive answers
	// are not kept.
	MaxCacheAge     time.Duration
	MaxCacheEntries int
	// Leeway is the clock skew allowed on exp and nbf (default
	// DefaultLeeway; negative: none).
	Leeway time.Duration
	// HTTPClient calls the endpoint (nil: http.DefaultClient).
	HTTPClient *http.Client
	// Logger receives a record when the endpoint fails (nil:
	// slog.Default()).
	Logger *slog.Logger
	// Now is the verifier's clock (nil: time.Now).
	Now func() time.Time
}

// IntrospectionVerifier is a TokenVerifier of opaque access tokens: it
// asks the authorization server (RFC 7662) whether a token is active and
// what it grants, and caches active answers up to the token's expiry,
// bounded in age and count. Besides active, it checks the answer's exp
// and nbf (with the leeway), iss and aud when present. The cache is keyed
// by the token's SHA-256 digest: tokens are not kept. An endpoint that
// cannot be reached or answers other than 200 gives ErrUnavailable. It is
// safe for concurrent use.
type IntrospectionVerifier struct {
	opts IntrospectionOptions

	mu    sync.Mutex
	cache map[[sha256.Size]byte]cached
}

type cached struct {
	p     *Principal
	until time.Time
}

// NewIntrospectionVerifier returns an IntrospectionVerifier for opts
// (copied). When Endpoint is empty it discovers it from the issuer's
// metadata, within ctx.
func NewIntrospectionVerifier(ctx context.Context, opts *IntrospectionOptions) (*IntrospectionVerifier, error) {
	if opts == nil || opts.Audience == "" || opts.ClientID == "" || (opts.Issuer == "" && opts.Endpoint == "") {
		return nil, errors.New("oauth: NewIntrospectionVerifier needs an Issuer or Endpoint, an Audience and a ClientID")
	}
	o := *opts
	if o.MaxCacheAge == 0 {
		o.MaxCacheAge = DefaultMaxCacheAge
	}
	if o.MaxCacheEntries <= 0 {
		o.MaxCacheEntries = DefaultMaxCacheEntries
	}
	setDefaults(&o.Leeway, &o.HTTPClient, &o.Logger, &o.Now)
	if o.Endpoint == "" {
		var err error
		o.Endpoint, err = discoverURL(ctx, o.HTTPClient, o.Issuer, "introspection_endpoint",
			func(md *ServerMetadata) string { return md.IntrospectionEndpoint })
		if err != nil {
			return nil, err
		}
	}
	return &IntrospectionVerifier{opts: o, cache: map[[sha256.Size]byte]cached{}}, nil
}

// introspection is the part of an RFC 7662 §2.2 answer read.
type introspection struct {
	Active   bool   `json:"active"`
	Scope    string `json:"scope,omitempty"`
	ClientID string `json:"client_id,omitempty"`
	Subject  string `json:"sub,omitempty"`
	Issuer   string `json:"iss,omitempty"`
	Audience any    `json:"aud,omitempty"`
	Exp      int64  `json:"exp,omitempty"`
	Nbf      int64  `json:"nbf,omitempty"`
}

// VerifyToken implements TokenVerifier.
func (v *IntrospectionVerifier) VerifyToken(ctx context.Context, token string) (*Principal, error) {
	key := sha256.Sum256([]byte(token))
	now := v.opts.Now()
	if p, ok := v.lookup(key, now); ok {
		return p, nil
	}
	in, err := v.introspect(ctx, token)
	if err != nil {
		return nil, err
	}
	p, err := v.principal(in, now)
	if err != nil {
		return nil, err
	}
	v.store(key, p, now)
	return p, nil
}

// introspect asks the endpoint about token.
func (v *IntrospectionVerifier) introspect(ctx context.Context, token string) (*introspection, error) {
	form := url.Values{"token": {token}, "token_type_hint": {"access_token"}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, v.opts.Endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	req.SetBasicAuth(url.QueryEscape(v.opts.ClientID), url.QueryEscape(v.opts.ClientSecret))
	resp, err := v.opts.HTTPClient.Do(req)
	if err != nil {
		// A *url.Error names the endpoint and the cause, never the body.
		v.fail(ctx, slog.String("err", err.Error()))
		return nil, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		v.fail(ctx, slog.Int("status", resp.StatusCode))
		return nil, fmt.Errorf("%w: the introspection endpoint answered %d", ErrUnavailable, resp.StatusCode)
	}
	var in introspection
	if err := decodeBody(resp.Body, &in); err != nil {
		v.fail(ctx, slog.String("err", err.Error()))
		return nil, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	return &in, nil
}

func (v *IntrospectionVerifier) fail(ctx context.Context, attr slog.Attr) {
	v.opts.Logger.LogAttrs(ctx, slog.LevelError, "oauth: token introspection failed",
		slog.String("endpoint", v.opts.Endpoint), attr)
}

// principal checks an answer and returns the Principal it describes.
func (v *IntrospectionVerifier) principal(in *introspection, now time.Time) (*Principal, error) {
	if !in.Active {
		return nil, ErrTokenInactive
	}
	p := &Principal{Issuer: in.Issuer, Subject: in.Subject, ClientID: in.ClientID, Scopes: strings.Fields(in.Scope)}
	if in.Exp != 0 {
		p.Expiry = time.Unix(in.Exp, 0)
		if !now.Before(p.Expiry.Add(v.opts.Leeway)) {
			return nil, ErrTokenExpired
		}
	}
	if in.Nbf != 0 && now.Add(v.opts.Leeway).Before(time.Unix(in.Nbf, 0)) {
		return nil, ErrTokenNotYetValid
	}
	switch {
	case in.Issuer == "":
		p.Issuer = v.opts.Issuer
	case v.opts.Issuer != "" && in.Issuer != v.opts.Issuer:
		return nil, ErrTokenIssuer
	}
	switch aud := in.Audience.(type) {
	case nil:
	case string:
		p.Audience = []string{aud}
	case []any:
		for _, a := range aud {
			if s, ok := a.(string); ok {
				p.Audience = append(p.Audience, s)
			}
		}
	default:
		return nil, ErrTokenMalformed
	}
	if in.Audience != nil && !slices.Contains(p.Audience, v.opts.Audience) {
		return nil, ErrTokenAudience
	}
	return p, nil
}

// lookup returns the cached Principal of a token, if it is still fresh
// and its token unexpired.
func (v *IntrospectionVerifier) lookup(key [sha256.Size]byte, now time.Time) (*Principal, bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	c, ok := v.cache[key]
	if !ok {
		return nil, false
	}
	if !now.Before(c.until) {
		delete(v.cache, key)
		return nil, false
	}
	return c.p, true
}

// store caches p until its token's expiry or MaxCacheAge. When the cache
// is full it first drops the stale entries, then, if none was, an
// arbitrary one.
func (v *IntrospectionVerifier) store(key [sha256.Size]byte, p *Principal, now time.Time) {
	if v.opts.MaxCacheAge < 0 {
		return
	}
	until := now.Add(v.opts.MaxCacheAge)
	if !p.Expiry.IsZero() && p.Expiry.Before(until) {
		until = p.Expiry
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if len(v.cache) >= v.opts.MaxCacheEntries {
		for k, c := range v.cache {
			if !now.Before(c.until) {
				delete(v.cache, k)
			}
		}
		for k := range v.cache {
			if len(v.cache) < v.opts.MaxCacheEntries {
				break
			}
			delete(v.cache, k)
		}
	}
	v.cache[key] = cached{p: p, until: until}
}
