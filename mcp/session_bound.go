package mcp

import "github.com/mcpwire/mcpwire/internal/session"

// SessionQuota returns the count of the server's sessions held by the
// transports that bound them (the Streamable HTTP and HTTP+SSE handlers of
// mcp/streamable): their session registries share it, so that the
// sessions of every such transport serving the server are counted
// together, each transport refusing a new one past its own maxima. It is
// the same Quota on every call. Safe for concurrent use.
func (s *Server) SessionQuota() *session.Quota { return &s.bounded }
