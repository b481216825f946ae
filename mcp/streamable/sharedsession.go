package streamable

// SessionID implements mcp.SharedSession: the session's Mcp-Session-Id.
func (s *httpSession) SessionID() string { return s.id }

// Revived implements mcp.SharedSession: whether the session was
// re-created from its SessionStore record (another instance started it,
// or this one before it forgot it).
func (s *httpSession) Revived() bool { return s.revived }
