// Package transport carries JSON-RPC connections over stdio, TCP and Unix
// sockets, in either framing (codec.Newline or codec.Header, chosen by
// conn.Options.Framing), over plain HTTP POST, and over WebSocket.
//
// Addresses are written as URLs: "tcp://127.0.0.1:7000", "tcp://[::1]:0",
// "unix:///run/app.sock". Listen removes a stale Unix socket file (nobody
// accepts on it) before binding, and refuses a path where a server accepts
// with ErrAddrInUse. Dial opens one client session.
//
// # Servers
//
// A [Server] serves each accepted connection as a session of its own, with
// the options its [conn.Binder] chooses, on any number of listeners. What a
// caller may rely on: Serve returns ErrServerClosed once the server is
// shut down or closed; Len and Sessions count and list the sessions being
// served; MaxConns bounds them; Shutdown(ctx) stops accepting and shuts
// every session down gracefully (every request it has read is answered,
// see [conn.Conn.Shutdown]) until ctx is done; Close ends them at once. The
// server, the HTTP and WebSocket handlers and the host policy are safe for
// concurrent use.
//
// # HTTP and WebSocket
//
// NewHTTPHandler and NewWebSocketHandler are http.Handlers to mount on a
// mux of one's own (at /rpc and /ws, say); NewHTTPServer returns an
// http.Server for them with every timeout set. Both ask a conn.Binder
// for each session's options, with a conn.Peer of Transport "http" or
// "ws" and the remote address, and put the request's header in the
// context the session's handlers see (HeaderFromContext), for credentials
// and trace context. Before anything else, each checks the request's Host
// and Origin against DNS rebinding by one rule, HostPolicy (a field of
// HTTPOptions and WebSocketOptions; mcp's HTTP handlers apply it too),
// refusing with 403 and -32010.
//
//   - HTTP POST: one message or batch per body, one session per request.
//     405 for a method other than POST, 415 without Content-Type
//     application/json, 413 for a body over the frame limit, 204 for a
//     body of only notifications; otherwise 200 with the answer, except a
//     single error response coded unauthorized (401, WWW-Authenticate:
//     Bearer), forbidden (403), too many requests (429) or overloaded with
//     a retry hint (503), the last two with Retry-After, or abandoned by
//     Shutdown (-32004, 503). A body that fails to come whole within
//     the read timeout is answered 400 and its connection closed, as is
//     a chunked request's (RFC 9112 §6.1). The connection of a 413 closes
//     after the rest of the body is read and dropped, within bounds
//     (httpjson's lingering close), so that a client that writes its
//     whole body before it reads gets the 413 rather than a reset; on
//     fasthttp it closes at once. See HTTPHandler.
//   - HTTP POST on fasthttp: FastHTTPHandler (with NewFastHTTPServer) serves
//     the same sessions with the same statuses and answers on
//     github.com/valyala/fasthttp, for an endpoint that carries only
//     JSON-RPC: it writes the answers of pipelined requests together and
//     spends far less per request than net/http. See FastHTTPHandler.
//   - WebSocket (github.com/coder/websocket): one session per connection,
//     one message or batch per WebSocket message; a message over the
//     frame limit is skipped and answered -32600; both sides ping, and a
//     peer that does not answer is cut off; an upgrade request with a body
//     is refused (400). See WebSocketHandler.
//
// On the client side, DialWebSocket and NewHTTPStream return conn.Streams
// for conn.NewStream: a client session over WebSocket (calls both ways),
// or over HTTP POST (each message one POST, concurrently; every request
// answered, by the server or, for an error status without a JSON-RPC
// answer, by an error made from the status).
package transport
