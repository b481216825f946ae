package demoserver

import (
	"context"
	"log/slog"
	"math"
	"net/http"
	"slices"

	"golang.org/x/time/rate"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/middleware"
	"github.com/mcpwire/mcpwire/oauth"
	"github.com/mcpwire/mcpwire/router"
	"github.com/mcpwire/mcpwire/transport"
)

// guard is what -auth-token, -forbid and -rate ask of every call, on
// every transport, and -v of the log.
type guard struct {
	token  string // -auth-token: "" for none
	oauth  bool   // -oauth-issuer: bearer is set before the first call
	bearer *oauth.Bearer
	forbid []string // -forbid: methods nobody may call
	rate   float64  // -rate: calls per second per peer; 0 for no limit
	log    *slog.Logger
	debug  bool // -v: one record per call

	// rateOptions are -rate's limiter's (nil: the defaults).
	rateOptions *middleware.RateOptions
}

// middleware returns the router middleware, in the order package
// middleware documents (logging, rate limit, authentication): none when no
// flag asks for it.
func (g *guard) middleware() []router.Middleware {
	var mw []router.Middleware
	if g.debug {
		mw = append(mw, middleware.Logging(g.log, &middleware.LogOptions{Level: slog.LevelDebug}))
	}
	if g.rate > 0 {
		// Bursts of one second's worth of calls.
		mw = append(mw, middleware.RateLimit(rate.Limit(g.rate), int(math.Ceil(g.rate)), g.rateOptions))
	}
	if g.authenticates() || len(g.forbid) > 0 {
		mw = append(mw, middleware.Auth(g.authenticator(), g.authorizer()))
	}
	return mw
}

// authenticates reports whether calls need the token.
func (g *guard) authenticates() bool { return g.token != "" || g.oauth }

// authenticator checks -auth-token: from the Authorization header over
// HTTP (/rpc) and WebSocket (/ws), from params._meta.authorization on
// stdio, TCP and Unix sockets. The sessions of the MCP HTTP handlers
// (/mcp, /sse) are the exception: their handlers cannot see each
// request's header, so http wraps those handlers in the same check, made
// on every request before the session sees it, and their calls pass here.
func (g *guard) authenticator() middleware.Authenticator {
	if !g.authenticates() {
		return nil
	}
	var bearer middleware.Authenticator
	if !g.oauth {
		bearer = middleware.BearerToken(g.token)
	}
	return middleware.AuthenticatorFunc(func(ctx context.Context, cred string) (any, error) {
		if cred == "" && checkedByHTTP(ctx) {
			// The principal the HTTP check found, when the call's
			// context carries it (a request of 2026-07-28), for its
			// scopes; sessions' scopes are checked by their handlers.
			if p, ok := middleware.PrincipalFromContext(ctx); ok {
				return p, nil
			}
			return middleware.BearerPrincipal, nil
		}
		if g.oauth {
			return g.bearer.Authenticate(ctx, cred)
		}
		return bearer.Authenticate(ctx, cred)
	})
}

// checkedByHTTP reports whether ctx is a call of a session the MCP HTTP
// handlers opened (conn.Peer transport "http" or "sse", and no header in
// the context: the JSON-RPC handlers of /rpc and /ws put theirs there).
func checkedByHTTP(ctx context.Context) bool {
	c := conn.FromContext(ctx)
	if c == nil || transport.HeaderFromContext(ctx) != nil {
		return false
	}
	t := c.Peer().Transport
	return t == "http" || t == "sse"
}

// authorizer refuses the methods of -forbid to every caller.
func (g *guard) authorizer() middleware.Authorizer {
	if len(g.forbid) == 0 {
		return nil
	}
	return middleware.AuthorizerFunc(func(_ context.Context, _ any, method string) error {
		if slices.Contains(g.forbid, method) {
			return codec.NewError(codec.CodeForbidden, "Forbidden: "+method+" is refused by -forbid").
				WithData(map[string]string{"method": method})
		}
		return nil
	})
}

// http wraps an HTTP endpoint whose sessions outlive a request (/mcp,
// /sse, as their streamable.Options.Middleware; /ws) in the token check: 401
// with WWW-Authenticate before the request reaches it. CORS preflights
// pass unauthenticated (middleware.HTTPAuth).
func (g *guard) http(h http.Handler) http.Handler {
	switch {
	case g.oauth:
		return g.bearer.Wrap(h)
	case !g.authenticates():
		return h
	}
	return middleware.HTTPAuth(middleware.BearerToken(g.token), h)
}
