// Package streamable carries the Model Context Protocol over HTTP for the
// servers and clients of package mcp: the Streamable HTTP transport (MCP
// 2025-03-26 and later) and the HTTP+SSE transport of 2024-11-05 that
// older clients speak, server and client sides. Handler, SSEHandler and
// the stores are safe for concurrent use.
//
// # Server guarantees
//
// NewHandler serves an mcp.Server at one endpoint (mount it at /mcp, say):
//
//   - POST carries one message, or a batch under 2025-03-26, with
//     Content-Type application/json (else 415) and an Accept that takes
//     JSON or an event stream (else 406). A body over Options.MaxBodyBytes
//     is 413; one that is not JSON is 400 with -32700. A body of
//     notifications and responses only is answered 202 with no body. A
//     body holding requests is answered with one JSON body when its
//     handlers send the client nothing before the answer. From the first
//     message a handler sends while serving it (progress, a log, a request
//     to the client, whose answer the client POSTs back), or from
//     CloseSSEStream, it is answered with an event stream instead: a
//     priming event (an id, no data; 2025-11-25 and later) with the retry
//     delay, what the handlers send, then the answer. A client that
//     accepts only an event stream gets one from the start; under
//     Options.JSONResponse, or when the client accepts only JSON, the
//     answer is always JSON (what the handlers send then goes to the GET
//     stream).
//   - A POST of initialize without a session starts one. Its id
//     (Mcp-Session-Id, 128 random bits as visible ASCII) must come with
//     every later request: missing, 400; unknown, deleted or expired, 404.
//     DELETE ends a session (204). A session that has seen no request and
//     held no stream open for Options.SessionTimeout expires; pings and
//     responses are not requests.
//   - A server holds at most Options.MaxSessions sessions over HTTP (its
//     Streamable HTTP and HTTP+SSE handlers together:
//     mcp.Server.SessionQuota) and MaxSessionsPerPrincipal of one
//     principal (the authenticated identity, else the peer's IP address);
//     a new session past either is 503 with Retry-After and -32000
//     naming the limit.
//   - GET opens the session's standalone stream (what the server sends
//     outside of any request): one at a time (409 for a second); 405 under
//     Options.DisableStandaloneSSE. What is sent while none is open waits
//     for the next one, within the EventStore's bounds.
//   - Every event has an id "<stream>.<n>", unique in its session. A GET
//     with Last-Event-ID replays what followed that event on its own
//     stream, never another's, and carries the stream on if it is live.
//     mcp.ServerRequest.CloseSSEStream ends a POST's stream early; the
//     client resumes after the retry delay and gets the rest.
//   - MCP-Protocol-Version, when present, must be a supported version,
//     else 400.
//   - A POST of a stateless protocol version (mcp.StatelessVersions:
//     2026-07-28) — its MCP-Protocol-Version names one, or, without
//     Mcp-Session-Id, its body's _meta names a protocol version — needs
//     neither a session nor initialize: its one request (a batch or a
//     response is 400) is served on its own by the server's stateless
//     path (package mcp, "Stateless requests"), and nothing of the client
//     is kept after it, so any instance of a server answers any such
//     request; Mcp-Session-Id is ignored. Its headers must mirror its
//     body: MCP-Protocol-Version the _meta's version, Mcp-Method the
//     method, Mcp-Name (tools/call, prompts/get: params.name;
//     resources/read: params.uri) — white space around a value dropped,
//     a value "=?base64?…?=" decoded (padded standard Base64) — else 400
//     with -32020 and the request's id. Its answer is JSON, or an event
//     stream of its own from the first message its handler sends (no
//     priming event, no event ids: it is not resumed), as the client
//     accepts. A JSON error answer is 404 for -32601, 400 for -32700,
//     -32600, -32602 and -32020 to -32022, else as below. Closing the
//     event stream, or on net/http leaving before a JSON answer, cancels
//     the request (its handler's context ends). A notification is 202
//     (notifications/cancelled is not dispatched: the closed stream is
//     the cancellation). GET and DELETE naming a stateless version are
//     405 (Allow: POST). Stateless requests in flight are bounded by the
//     server's MaxInFlight (conn.Options), past which they are refused
//     -32000 (503).
//   - The host and origin policy (transport.HostPolicy) applies first: 403
//     with -32010 when it refuses. Options.CORS lets pages of the listed
//     origins call from a browser (preflights 204); without it OPTIONS is
//     405. Options.Middleware (authentication) runs after CORS.
//   - Every error status carries a JSON-RPC error response without id,
//     whose text is one of a fixed set, never an error's text or an
//     address. Statuses: 200, 202, 204, 400, 403, 404, 405, 406, 409, 413,
//     415, 500 (a store failed), 503. A plain JSON answer that is one error
//     gets the status JSON-RPC over HTTP gives it: 401 for -32009 (with
//     WWW-Authenticate), 403 for -32010, 429 for -32011 and 503 for -32000
//     (both with Retry-After), 503 for -32004.
//   - A body not sent whole within Options.ReadTimeout is 400 and the
//     connection is closed. A 413 reads and drops the rest of the body,
//     bounded in bytes and time, before closing, so that a client that
//     writes its whole body before it reads gets the answer.
//   - Handler.Shutdown lets running handlers finish; Handler.Close ends
//     every session, and cancels every stateless request, at once.
//     Neither changes the stores.
//   - A JSON answer that is a cacheable result of 2026-07-28 (a list,
//     resources/read, server/discover, with the cache hints
//     mcp.ServerOptions.Caching sets) carries Cache-Control (public or
//     private, max-age from ttlMs) and a strong ETag of the result alone
//     (not of the JSON-RPC id); a POST whose If-None-Match matches it is
//     answered 304 with no body (etag.go says how the tag is made and
//     compared).
//
// Handler.ServeFastHTTP serves the same endpoint, with the same sessions
// and guarantees, on github.com/valyala/fasthttp (serve it with
// transport.NewFastHTTPServer): the choice of server is the caller's.
//
// NewSSEHandler serves HTTP+SSE beside it, under the same session bounds
// and SessionTimeout. Serve both with transport.NewHTTPServer and
// HTTPServerOptions.EventStreams, whose timeouts leave event streams be.
//
// # Authorization
//
// Authentication goes in Options.Middleware (oauth.Bearer.Wrap, or
// middleware.HTTPAuth), which puts the caller's principal in each
// request's context. The MCP handlers of a POST's requests find it in
// theirs (middleware.PrincipalFromContext, oauth.FromContext: package mcp
// takes it from conn.BodyContext), in both eras, so a 2026-07-28
// requestState and a task of the tasks extension are bound to it. On that
// principal the handlers build two checks:
//
//   - A session (Streamable HTTP or HTTP+SSE) is bound to the principal
//     that opened it; a request naming it with another principal's
//     credentials (or none, when it had some) is answered as for an
//     unknown session: 404 with -32600. A session id is not a credential.
//     The SessionStore keeps a digest of the owner, so an instance
//     re-creating the session checks it too (owner.go says why 404).
//   - Before a POST's messages are served, the scopes their requests need
//     (mcp.Server.RequiredScopes: ServerOptions.MethodScopes, Tool.Scopes
//     and the like) are checked against the principal's (mcp.ScopeHolder,
//     which oauth.Principal is): a missing one is answered 403 with
//     "WWW-Authenticate: Bearer error="insufficient_scope",
//     scope="<missing>"" (and resource_metadata, Options.
//     ResourceMetadataURL) and -32010 whose data names the scopes; no
//     principal at all, 401 with -32009. A batch is refused whole.
//
// An expired token is refused by the Middleware (401) and ends nothing:
// the session lives on for the next request with a valid token.
//
// # Client guarantees
//
// Connect speaks Streamable HTTP for an mcp.Client: requests are POSTed
// concurrently, notifications and responses one at a time in order; the
// session id and negotiated version go with every request; a GET stream
// receives what the server sends outside of requests; a stream that
// breaks before its answer is resumed with Last-Event-ID; closing the
// session sends DELETE. A session the server no longer knows ends with
// ErrSessionNotFound. A server that refuses the initialize POST with 400,
// 404 or 405 is tried as HTTP+SSE unless ClientOptions.DisableSSEFallback;
// ConnectSSE speaks HTTP+SSE only. An answer that is neither JSON-RPC nor
// one of the statuses above (a wrong URL's 404, a proxy's 502) fails the
// call, or Connect, with a *transport.HTTPStatusError. NewClientStream is
// the client side as a bare conn.Stream. Under 2026-07-28 a request whose
// last answer came with an ETag (a list, a read, server/discover) is sent
// again with If-None-Match, and a 304 is answered from the result kept
// (the last 256 such results).
//
// # Design
//
// Each session is an mcp.ServerSession connected by
// mcp.Server.ConnectTransport to a stream that reads nothing and writes to
// the standalone stream; each POST body is served by
// conn.Conn.ServeBodySink, whose sink writes to that POST's stream. The
// handler is the session's mcp.SessionTransport: through it the session
// ends a POST's stream, finds where a keep-alive ping goes, and reports
// its end. A POST waits for its answer on its own goroutine, and becomes
// an event stream only when a handler streams (conn.BodySink.Detach): a
// call that streams nothing costs no stream, no event id and no stored
// event. mcp.Server.SessionQuota counts the sessions of all handlers.
// Stateless requests are served, body by body, by one connection the
// handler starts on first use and keeps (a session never initialised,
// without a stream): each request gets the ServerSession package mcp
// makes from its _meta, and its POST a conn.BodyCancel to cancel it by.
// One that asked for no progress and no log messages (or whose answer
// cannot stream), subscriptions/listen aside, runs on its POST's
// goroutine (conn.BodySink.Here): a handler of 2026-07-28 never waits on
// the client, so nothing it sends must reach it before the answer, which
// carries what it sent. That spares the hand-off to a worker and the
// POST's wake-up, about a tenth of such a call's server CPU.
// A stream's events stay in the EventStore only while a client can resume
// them, bounded per session (Options.MaxSessionEvents): a session holds
// about 4.4 KiB idle, 157 KiB subscribed at the default retention
// (TestHTTP_sessionMemory; Go 1.26, amd64), at most about
// MaxSessionEventBytes plus its newest event.
//
// The SessionStore and EventStore hold bytes and strings only: with stores
// shared by several instances, any instance serves a session another
// started (re-created from its stored initialize request), and a session
// deleted on one is refused by all within a quarter of SessionTimeout. The
// in-memory defaults serve one process.
//
// A store may share more (redisstore's do). A SharedSessionStore tells
// every instance of a deletion, and each ends its copy of the session at
// once. With a SharedEventStore a session's standalone stream is one
// stream for all instances: its id is derived from the session's id, the
// store numbers its events, whatever any instance's copy of the session
// sends outside a request is published to it (a server-wide
// list_changed or resources/updated that several copies send for one
// change is kept once: the store drops a repeat of the same bytes within
// a second), and the GET, on whichever instance, delivers them in order,
// woken by the store and polling it every two seconds in case a wake-up
// was lost. A client resuming it with Last-Event-ID on any instance gets
// the events after that one, then the live stream; a fresh GET starts
// after the stream's last event. When the store fails, an event still
// reaches a GET on the instance that sends it, without an id (it cannot
// be resumed), and the failure is logged; a new session is refused with
// 503 and -32000 "session store unavailable; retry" (Retry-After); the
// sessions an instance holds go on being served.
package streamable
