// Package middleware holds the router.Middleware a production JSON-RPC or
// MCP server expects: structured request logging (Logging), authentication
// and authorisation (Auth, BearerToken), per-peer rate limiting
// (RateLimit) and W3C trace-context propagation (TraceContext). Each is a
// router.Middleware: install them with router.Router.Use or
// mcp.Server.Use.
//
// # Order
//
// Middleware given to Use (or to Chain) runs first-given outermost. The
// order this package is made for is
//
//	srv.Use(middleware.Chain(
//		middleware.TraceContext(extract),                      // 1
//		middleware.Logging(logger, nil),                       // 2
//		middleware.RateLimit(100, 200, nil),                   // 3
//		middleware.Auth(middleware.BearerToken(token), authz), // 4
//	))
//
// because:
//
//  1. TraceContext comes first so that everything after it — the log
//     record, the refusals, the handler and what it calls — runs in the
//     caller's trace (the extract hook puts the remote span context in the
//     handler's context, where an OpenTelemetry-aware slog handler finds it).
//  2. Logging comes next so that every call is recorded, those the rate
//     limit or authentication refuse included, with their codes (-32011,
//     -32009, -32010): refusals are what an operator looks for.
//  3. RateLimit comes before Auth so that a flood is refused before any
//     credential is checked — a constant-time compare is cheap, a
//     signature check or a database lookup is not — and so that token
//     guessing is throttled per peer.
//  4. Auth is innermost: a handler runs only once its caller is known and
//     allowed, with the principal in its context (PrincipalFromContext).
//
// # Cost
//
// The router assembles the chain when a method is registered or Use is
// called, never per call, so a router without middleware pays nothing.
// A middleware with nothing to do returns the next handler itself: Auth
// with neither hook, RateLimit at rate.Inf, Logging with a nil logger.
// Logging whose logger is not enabled at its level costs one Enabled
// call. The per-call cost of each is measured by BenchmarkMiddleware.
//
// Every middleware this package returns is safe for concurrent use: one
// instance serves every session of a server. All of them run on the
// goroutine that runs the handler — a connection's
// reader for an inline method or a cache hit — and none of them blocks:
// RateLimit refuses rather than waits.
//
// # Credentials, peers and trace context
//
// Over HTTP and WebSocket, credentials and trace context come from the
// request's header (transport.HeaderFromContext: "Authorization: Bearer
// …", "traceparent", "tracestate"). Stream transports (stdio, TCP, Unix)
// carry no header, so there they come from the request's params, in MCP's
// _meta object: {"_meta": {"authorization": "Bearer …", "traceparent":
// "00-…", "tracestate": "…"}}. Logging never writes the authorization
// member's value. An endpoint whose sessions outlive one HTTP request
// (MCP's Streamable HTTP) cannot show each request's header to Auth:
// HTTPAuth checks the token of every request and answers 401 before the
// session sees it. In front of a WebSocket handler it refuses the upgrade
// with 401 instead of answering every message -32009.
//
// A peer, for RateLimit, is the session (conn.FromContext) on stream
// transports and WebSocket, and the remote IP address for HTTP POST, whose
// requests may come over many connections (PeerKey); PrincipalKey makes
// it the authenticated caller. Instances of a server behind one endpoint
// share a peer's budget through a RateStore (RateOptions.Store; package
// redisstore keeps one in Redis): one call to it per rate-limited call,
// and each instance limits alone while it fails.
//
// # Security considerations
//
// A method's interceptor (router.MethodOptions.Intercept, and so a
// response cache: MethodOptions.Cache) answers through the middleware
// (router.Entry.Intercepted): a cached method's hits are authenticated,
// authorised and rate limited as its misses are, on the connection's
// reader. The cache is asked first, so a refused call may still count as
// a hit in the cache's statistics; it never gets the cached answer.
//
// BearerToken compares tokens in constant time (over their SHA-256
// digests, so that the token's length does not leak either). Refusals say
// what was missing or wrong, never what was expected.
package middleware
