// Package session holds the live sessions of a server: the one registry
// every server of the project keeps its sessions in (transport.Server,
// transport.WebSocketHandler, the sessions of transport.HTTPHandler's
// POSTs, mcp.Server, and mcp/streamable's Handler and SSEHandler), so
// that they share one lifecycle (internal/sessiontest tests it on each).
//
// A Registry maps keys to sessions. A session enters with Add (or
// Reserve, then AddReserved, when it must be counted against the limits
// before it can be looked up), and leaves with Remove, which its owner
// calls once the session has ended. Shutdown and Close end a registry:
// from then on it refuses new sessions (ErrClosed), and it ends those it
// holds, gracefully or at once, then waits for their owners to have
// removed them.
//
// Limits: a Registry bounds the sessions it holds in all (Max) and those
// of one group (MaxPerGroup: a group is the caller's choice, e.g. the
// principal a session belongs to). The counts live in a Quota, which
// several registries may share to be bounded together. A refusal is a
// *LimitError, which callers map to their own answer (an HTTP 503, a
// JSON-RPC -32000).
//
// Idle sessions are their owner's to expire: a registry knows nothing of
// a session's activity. An owner that keeps a timer per session (as MCP's
// Streamable HTTP handler does) removes the session it expires.
package session
