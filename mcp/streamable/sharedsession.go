package streamable

// SessionID implements mcp.SharedSession: the session's Mcp-Session-Id.
func (s *httpSession) SessionID() string { return s.id }

// Revived implements mcp.SharedSession: whether the session was
// re-created from its SessionStore record (another instance started it,
// or this one before it forgot it).
func (s *httpSession) Revived() bool { return s.revived }

// SessionDeleted implements mcp.SharedSession: it reports, as the
// session's copy here ends, whether the session ends everywhere (deleted
// by the client, the application or another instance: its tasks go with
// it) rather than on this instance alone (the handler closing, or the
// copy idle here: other instances may go on serving it, and its tasks
// stay to their lifetime).
func (s *httpSession) SessionDeleted() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.ended { // the application closed it: SessionEnded deletes it
		return !s.keep.Load()
	}
	return s.why == endDeleted
}
