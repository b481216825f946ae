package oauth

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/middleware"
)

// BearerOptions configure a Bearer. The zero value is valid.
type BearerOptions struct {
	// ResourceMetadataURL is the absolute URL of the resource's metadata
	// (MetadataURL), named in every refusal's WWW-Authenticate as
	// resource_metadata (RFC 9728 §5.1) so that a client can find the
	// authorization server. Empty: not named.
	ResourceMetadataURL string
	// Scopes are required of every request: a 401 names them as scope=
	// (what to ask for), a token without one of them is answered 403.
	Scopes []string
	// Logger receives one Info record per refused request, naming the
	// reason and the status, never a token. Nil: no records.
	Logger *slog.Logger
}

// Bearer authenticates requests by their OAuth 2.1 bearer access tokens
// (RFC 6750), checked by a TokenVerifier: as net/http middleware (Wrap,
// for MCP's Streamable HTTP, a plain JSON-RPC /rpc endpoint or a
// WebSocket's upgrade) and as a middleware.Authenticator (for
// middleware.Auth on stream transports, where the token rides in
// params._meta.authorization). A Bearer is safe for concurrent use.
type Bearer struct {
	v      TokenVerifier
	opts   BearerOptions
	scope  string // opts.Scopes, space-separated
	prefix string // the challenge's parameters every refusal carries
}

// NewBearer returns a Bearer checking tokens with v. opts may be nil; it
// is copied.
func NewBearer(v TokenVerifier, opts *BearerOptions) *Bearer {
	b := &Bearer{v: v}
	if opts != nil {
		b.opts = *opts
		b.opts.Scopes = slices.Clone(opts.Scopes)
	}
	b.scope = strings.Join(b.opts.Scopes, " ")
	if b.opts.ResourceMetadataURL != "" {
		b.prefix = `resource_metadata=` + quote(b.opts.ResourceMetadataURL)
	}
	return b
}

// RequireBearer is NewBearer(v, opts).Wrap: the shape of
// streamable.Options.Middleware.
func RequireBearer(v TokenVerifier, opts *BearerOptions) func(http.Handler) http.Handler {
	return NewBearer(v, opts).Wrap
}

// Wrap returns an http.Handler that serves a request with next only once
// its token is accepted and grants BearerOptions.Scopes, with the
// Principal in its context (FromContext, middleware.PrincipalFromContext).
// The token is read from the Authorization header alone; a request is
// refused (Refuse says how) when it has
//
//   - an access_token query parameter: 400, error="invalid_request" —
//     RFC 6750 §2.3 allows that method, but OAuth 2.1 and MCP forbid it,
//     since URLs end up in logs and histories; this holds even with a
//     valid header as well, as RFC 6750 §2 forbids sending two;
//   - no Authorization header, or one of another scheme: 401 with the
//     challenge alone (resource_metadata, scope);
//   - a token the verifier refuses: 401, error="invalid_token";
//   - a token that lacks a required scope: 403,
//     error="insufficient_scope", scope naming the missing scopes;
//   - a token that could not be checked (ErrUnavailable): 503.
//
// A CORS preflight (OPTIONS with Origin and
// Access-Control-Request-Method) reaches next unauthenticated, as
// middleware.HTTPAuth lets it: browsers never send credentials with one.
func (b *Bearer) Wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodOptions && r.Header.Get("Origin") != "" && r.Header.Get("Access-Control-Request-Method") != "" {
			next.ServeHTTP(w, r)
			return
		}
		if r.URL.Query().Has("access_token") {
			b.Refuse(w, errQueryToken)
			return
		}
		p, err := b.authenticate(r.Context(), r.Header.Get("Authorization"))
		if err == nil {
			err = b.scopes(p)
		}
		if err != nil {
			b.Refuse(w, err)
			return
		}
		next.ServeHTTP(w, r.WithContext(ContextWithPrincipal(r.Context(), p)))
	})
}

// Authenticate implements middleware.Authenticator: credential is the
// whole "Bearer <token>" value. It returns the *Principal (with
// BearerOptions.Scopes checked), or an error middleware.Auth answers
// -32009 (no or invalid token), -32010 (a missing scope, data naming it)
// or -32603 (the token could not be checked now).
func (b *Bearer) Authenticate(ctx context.Context, credential string) (any, error) {
	p, err := b.authenticate(ctx, credential)
	if err == nil {
		err = b.scopes(p)
	}
	if err != nil {
		b.log(ctx, err, 0)
		return nil, rpcError(err)
	}
	return p, nil
}

var _ middleware.Authenticator = (*Bearer)(nil)

// errNoToken: no Authorization header, or one of another scheme.
var errNoToken = errors.New("oauth: no bearer token")

// errQueryToken: a token in the query string.
var errQueryToken = errors.New("oauth: access token in the query string")

// authenticate verifies the token of an Authorization header's value.
func (b *Bearer) authenticate(ctx context.Context, credential string) (*Principal, error) {
	scheme, tok, found := strings.Cut(credential, " ")
	if !found || !strings.EqualFold(scheme, "Bearer") {
		return nil, errNoToken
	}
	tok = strings.Trim(tok, " ")
	if tok == "" || strings.ContainsAny(tok, " \t") {
		return nil, ErrTokenMalformed
	}
	p, err := b.v.VerifyToken(ctx, tok)
	switch {
	case err != nil:
		return nil, err
	case p == nil:
		return nil, ErrInvalidToken
	}
	return p, nil
}

// scopes checks that p grants BearerOptions.Scopes.
func (b *Bearer) scopes(p *Principal) error {
	if missing := p.MissingScopes(b.opts.Scopes...); missing != nil {
		return &ScopeError{Missing: missing}
	}
	return nil
}

// Refuse answers a request that err refuses, as Wrap does: the status and
// WWW-Authenticate header for err (a *ScopeError: 403 insufficient_scope;
// ErrUnavailable: 503; otherwise 401) and a JSON-RPC error body, id null
// (-32009, -32010 with data {"scope": …}, or -32603 for 503). A handler
// behind Wrap that checks a scope of its own (RequireScopes) calls it to
// send the step-up challenge. Neither the header nor the body ever
// carries the token.
func (b *Bearer) Refuse(w http.ResponseWriter, err error) {
	status, challenge := b.challenge(err)
	b.log(context.Background(), err, status)
	body := codec.AppendError(nil, nil, rpcError(err))
	h := w.Header()
	if challenge != "" {
		h.Set("WWW-Authenticate", challenge)
	}
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(body)
}

// challenge returns the status and WWW-Authenticate value for err.
func (b *Bearer) challenge(err error) (int, string) {
	var params []string
	status := http.StatusUnauthorized
	var se *ScopeError
	switch {
	case errors.As(err, &se):
		status = http.StatusForbidden
		params = append(params, `error="insufficient_scope"`, `scope=`+quote(strings.Join(se.Missing, " ")),
			`error_description="the access token lacks a required scope"`)
	case errors.Is(err, ErrUnavailable):
		return http.StatusServiceUnavailable, ""
	case errors.Is(err, errQueryToken):
		status = http.StatusBadRequest
		params = append(params, `error="invalid_request"`,
			`error_description="send the access token in the Authorization header, never in the URL"`)
	case errors.Is(err, errNoToken):
		if b.scope != "" {
			params = append(params, `scope=`+quote(b.scope))
		}
	default:
		params = append(params, `error="invalid_token"`, `error_description=`+quote(description(err)))
		if b.scope != "" {
			params = append(params, `scope=`+quote(b.scope))
		}
	}
	if b.prefix != "" {
		params = append(params, b.prefix)
	}
	if len(params) == 0 {
		return status, "Bearer"
	}
	return status, "Bearer " + strings.Join(params, ", ")
}

// description returns the error_description of a refused token: the
// reason this package's sentinel gives, never a library's error text.
func description(err error) string {
	msg := reason(err).Error()
	return "the access token is invalid" + strings.TrimPrefix(msg, ErrInvalidToken.Error())
}

// The JSON-RPC errors refusals carry, shared and read-only.
var (
	rpcNoToken = codec.NewError(codec.CodeUnauthorized,
		"Unauthorized: an access token is required (Authorization: Bearer …)")
	rpcQueryToken = codec.NewError(codec.CodeUnauthorized,
		"Unauthorized: access tokens are accepted in the Authorization header only, never in the URL")
	rpcUnavailable = codec.NewError(codec.CodeInternalError,
		"Internal error: the access token cannot be checked now; retry later")
)

// rpcError returns the JSON-RPC error a refusal for err carries.
func rpcError(err error) *codec.Error {
	var se *ScopeError
	switch {
	case errors.As(err, &se):
		e, _ := errors.AsType[*codec.Error](se.Unwrap())
		return e
	case errors.Is(err, ErrUnavailable):
		return rpcUnavailable
	case errors.Is(err, errQueryToken):
		return rpcQueryToken
	case errors.Is(err, errNoToken):
		return rpcNoToken
	}
	return codec.NewError(codec.CodeUnauthorized, "Unauthorized: "+description(err))
}

// log records a refusal: its reason and status, never the token.
func (b *Bearer) log(ctx context.Context, err error, status int) {
	if b.opts.Logger == nil {
		return
	}
	var why string
	var se *ScopeError
	switch {
	case errors.As(err, &se):
		why = "insufficient scope: missing " + strings.Join(se.Missing, " ")
	case errors.Is(err, ErrUnavailable):
		why = ErrUnavailable.Error() // err may hold a library's text: the verifier logged it
	case errors.Is(err, errQueryToken), errors.Is(err, errNoToken):
		why = err.Error()
	default:
		why = reason(err).Error()
	}
	attrs := []slog.Attr{slog.String("reason", why)}
	if status != 0 {
		attrs = append(attrs, slog.Int("status", status))
	}
	b.opts.Logger.LogAttrs(ctx, slog.LevelInfo, "oauth: request refused", attrs...)
}

// quote returns s as an RFC 7230 quoted-string.
func quote(s string) string {
	return strconv.Quote(s) // s is ours: ASCII URLs and scope tokens, with no control characters
}
