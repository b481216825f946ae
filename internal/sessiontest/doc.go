// Package sessiontest holds the one lifecycle test every server of the
// project passes: transport.Server, transport.WebSocketHandler, mcp.Server
// served by a transport.Server, and mcp/streamable's Handler and
// SSEHandler, all of which keep their sessions in internal/session's
// Registry. It has no code of its own: the test is its content.
package sessiontest
