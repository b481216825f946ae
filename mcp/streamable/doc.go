// Package streamable carries the Model Context Protocol over HTTP: the
// Streamable HTTP transport (MCP 2025-03-26 and later) and the HTTP+SSE
// transport of 2024-11-05 that older clients speak, server and client
// sides, for the servers and clients of package mcp.
//
// # Server
//
// NewHandler serves an mcp.Server at one endpoint (mount it at /mcp, say).
// A caller may rely on this:
//
//   - POST carries one message, or a batch under 2025-03-26, with
//     Content-Type application/json (else 415) and an Accept that takes
//     JSON or an event stream (else 406; no Accept takes both). A body
//     over Options.MaxBodyBytes is 413; one that is not JSON is 400 with
//     -32700. Notifications and responses only are answered 202 with no
//     body. A body holding requests is answered with an event stream: a
//     priming event (an id, no data; sessions of 2025-11-25 and later)
//     with the retry delay, every message the handlers send while serving
//     it (progress, logs, their requests to the client, whose answers the
//     client POSTs back), and the answer last; or with one JSON body when
//     Options.JSONResponse is set or the client accepts only JSON (what
//     the handlers send then goes to the GET stream).
//   - A POST of initialize without a session starts one; its id
//     (Mcp-Session-Id, 128 random bits as visible ASCII) must come with
//     every later request: without it 400; unknown, deleted or expired
//     404. DELETE ends a session (204). A session with no request and no
//     open stream for Options.SessionTimeout expires; pings and responses
//     do not count as requests.
//   - One server holds at most Options.MaxSessions sessions over HTTP (its
//     Streamable HTTP and HTTP+SSE handlers together:
//     mcp.Server.SessionQuota) and MaxSessionsPerPrincipal of one
//     principal (the authenticated identity, else the peer's IP address);
//     past either, 503 with Retry-After and -32000 naming the limit.
//   - GET opens the session's standalone stream (what the server sends
//     outside of any request): one at a time (409 for a second), 405 with
//     Options.DisableStandaloneSSE. What is sent while none is open waits
//     for the next one, within the EventStore's bounds.
//   - Every event has an id, "<stream>.<n>", unique in its session. A GET
//     with Last-Event-ID replays what followed that event on its own
//     stream, never another's, and carries the stream on if it is live.
//     mcp.ServerRequest.CloseSSEStream ends a POST's response early; the
//     client resumes after the retry delay and gets the rest.
//   - MCP-Protocol-Version, when present, must be a supported version,
//     else 400.
//   - The host and origin policy of every HTTP endpoint of the engine
//     (transport.HostPolicy) applies first: 403 with -32010 when it
//     refuses. With Options.CORS, pages of the listed origins may call
//     from a browser: preflights are answered 204, answers expose the
//     transport's headers; without it OPTIONS is 405. Options.Middleware
//     (authentication) runs after CORS.
//   - Every error status carries a JSON-RPC error response without id,
//     whose text is one of a fixed set, never an error's text or an
//     address. Statuses: 200, 202, 204, 400, 403, 404, 405, 406, 409, 413,
//     415, 500 (a store failed), 503. A POST answered with plain JSON
//     whose answer is one error gets the status JSON-RPC over HTTP gives
//     it (401 for -32009 with WWW-Authenticate, 403 for -32010, 429 for
//     -32011 and 503 for -32000 with data.retryAfterMs, both with
//     Retry-After; 503 for -32004).
//   - A body not sent whole within Options.ReadTimeout is answered 400 and
//     the connection closed. A 413 reads and drops the rest of the body,
//     bounded in bytes and time, before it closes the connection, so that
//     a client that writes its whole body before it reads gets the answer.
//   - Handler.Shutdown lets running handlers finish; Close ends every
//     session at once. Both leave the stores as they are.
//
// NewSSEHandler serves the HTTP+SSE transport of 2024-11-05 beside it,
// under the same bounds on sessions; its sessions expire after
// SessionTimeout without a request too. Serve both with
// transport.NewHTTPServer and HTTPServerOptions.EventStreams, whose
// timeouts leave event streams be.
//
// # Client
//
// Connect speaks Streamable HTTP for an mcp.Client: each message is a POST
// (requests concurrently; notifications and responses one at a time, in
// order), answers come as JSON or on the POST's event stream, the session
// id and negotiated version go with every request, a GET stream receives
// what the server sends outside of requests, a stream that breaks before
// its answer is resumed with Last-Event-ID, and closing the session sends
// DELETE. A session the server no longer knows ends with
// ErrSessionNotFound. A server that refuses the initialize POST with 400,
// 404 or 405 is tried as an HTTP+SSE server unless
// ClientOptions.DisableSSEFallback; ConnectSSE speaks that transport
// directly. An answer that is neither JSON-RPC nor one of the statuses
// above (a 404 from a wrong URL, a proxy's 502) is a
// *transport.HTTPStatusError, as the call's or Connect's error.
// NewClientStream is the client side as a bare conn.Stream.
//
// # Design
//
// Each session is an mcp.ServerSession connected with
// mcp.Server.ConnectTransport to a message stream that reads nothing and
// writes to the standalone stream; each POST body is served with
// conn.Conn.ServeBodySink, whose sink writes what the handlers send to
// that POST's stream. The handler implements mcp.SessionTransport so that
// the session can end a POST's stream (CloseSSEStream), find where a
// keep-alive ping goes, and tell the handler it ended. Streams keep their
// events in the EventStore only while a client can resume them. The
// SessionStore and EventStore hold bytes and strings only: given stores
// shared by several instances, any instance serves a session another
// started (re-created from its stored initialize request), and a session
// deleted on one is refused by all within a quarter of SessionTimeout.
// The in-memory defaults serve one process.
package streamable
