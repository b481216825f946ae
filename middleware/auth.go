package middleware

import (
	"context"
	"errors"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/internal/principal"
	"github.com/mcpwire/mcpwire/router"
	"github.com/mcpwire/mcpwire/transport"
)

// Authenticator checks the credentials a request came with. credential is
// the whole value of the Authorization header ("Bearer abc…") over HTTP and
// WebSocket, or of params._meta.authorization on stream transports; it is
// "" when the request brought none. It returns the principal — whatever
// identifies the caller to the handlers and the Authorizer; not nil, or
// PrincipalFromContext will not find it — or an error:
// ErrNoCredentials or ErrInvalidCredentials (or an error wrapping one)
// become -32009 with a message saying which, and a *codec.Error is sent as
// it is. Any other error is answered like ErrInvalidCredentials, its text
// kept from the peer. Implementations must be safe for concurrent use.
type Authenticator interface {
	Authenticate(ctx context.Context, credential string) (principal any, err error)
}

// AuthenticatorFunc adapts a function to Authenticator.
type AuthenticatorFunc func(ctx context.Context, credential string) (any, error)

// Authenticate calls f.
func (f AuthenticatorFunc) Authenticate(ctx context.Context, credential string) (any, error) {
	return f(ctx, credential)
}

// Authorizer decides whether an authenticated principal may call method. A
// nil error allows the call; any other refuses it with -32010, whose data
// names the method ({"method": "…"}); a *codec.Error is sent as it is.
// Implementations must be safe for concurrent use.
type Authorizer interface {
	Authorize(ctx context.Context, principal any, method string) error
}

// AuthorizerFunc adapts a function to Authorizer.
type AuthorizerFunc func(ctx context.Context, principal any, method string) error

// Authorize calls f.
func (f AuthorizerFunc) Authorize(ctx context.Context, principal any, method string) error {
	return f(ctx, principal, method)
}

// Errors an Authenticator returns; compare with errors.Is.
var (
	// ErrNoCredentials: the request brought no credentials.
	ErrNoCredentials = errors.New("middleware: no credentials")
	// ErrInvalidCredentials: the request's credentials are not accepted
	// (malformed, wrong scheme, unknown or expired token).
	ErrInvalidCredentials = errors.New("middleware: invalid credentials")
)

// The -32009 answers, shared and read-only.
var (
	errNoCredentials = codec.NewError(codec.CodeUnauthorized,
		"Unauthorized: credentials required (an Authorization header, or params._meta.authorization on stream transports)")
	errInvalidCredentials = codec.NewError(codec.CodeUnauthorized, "Unauthorized: invalid credentials")
)

// PrincipalFromContext returns the principal Auth's Authenticator gave the
// call whose handler ctx belongs to (or the request ctx of an HTTPAuth
// handler), and whether there is one: a nil principal reads as none.
func PrincipalFromContext(ctx context.Context) (any, bool) {
	return principal.From(ctx)
}

// Auth returns middleware that authenticates each call with authn and
// then authorises its method with authz; either may be nil to skip that
// step (with both nil, the middleware returns the handler it wraps as it
// is). Credentials are read from the Authorization header over HTTP and
// WebSocket (transport.HeaderFromContext) and, when there is no such
// header, from params._meta.authorization, a JSON string, on stream
// transports. A refused call is answered -32009 (unauthenticated) or
// -32010 (not allowed; data names the method) and never reaches the
// handler; a refused notification is dropped. The principal is put in the
// handler's context: PrincipalFromContext.
func Auth(authn Authenticator, authz Authorizer) router.Middleware {
	return func(next router.Handler) router.Handler {
		if authn == nil && authz == nil {
			return next
		}
		return &auth{authn: authn, authz: authz, next: next}
	}
}

type auth struct {
	authn Authenticator
	authz Authorizer
	next  router.Handler
}

func (a *auth) Handle(ctx context.Context, req *router.Request) (any, error) {
	var who any
	if a.authn != nil {
		cred, ok := credential(ctx, req)
		if !ok {
			return nil, errInvalidCredentials
		}
		var err error
		if who, err = a.authn.Authenticate(ctx, cred); err != nil {
			return nil, unauthorized(err)
		}
		ctx = principal.With(ctx, who)
	}
	if a.authz != nil {
		if err := a.authz.Authorize(ctx, who, req.Method); err != nil {
			return nil, forbidden(req.Method, err)
		}
	}
	return a.next.Handle(ctx, req)
}

// credential returns the request's credentials ("" when it brought none),
// or ok == false when params._meta.authorization is not a string.
func credential(ctx context.Context, req *router.Request) (cred string, ok bool) {
	if h := transport.HeaderFromContext(ctx); h != nil {
		if v := h["Authorization"]; len(v) > 0 {
			return v[0], true
		}
	}
	s, present := memberString(metaObject(req.Params), "authorization")
	return s, !present || s != ""
}

// unauthorized turns an Authenticator's error into the -32009 to answer.
func unauthorized(err error) *codec.Error {
	if e, ok := errors.AsType[*codec.Error](err); ok {
		return e
	}
	if errors.Is(err, ErrNoCredentials) {
		return errNoCredentials
	}
	return errInvalidCredentials
}

// forbidden turns an Authorizer's error into the -32010 to answer.
func forbidden(method string, err error) *codec.Error {
	if e, ok := errors.AsType[*codec.Error](err); ok {
		return e
	}
	e := codec.NewError(codec.CodeForbidden, "Forbidden: the caller may not call "+method)
	return e.WithData(map[string]string{"method": method})
}
