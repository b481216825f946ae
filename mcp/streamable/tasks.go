package streamable

// SessionID names the session as its Mcp-Session-Id does, the same on
// every instance that serves a copy of it (from the SessionStore): the
// server keeps the session's tasks under it, so that a task started
// through one instance is read, awaited and cancelled through any other.
func (s *httpSession) SessionID() string { return s.id }

// SessionDeleted reports, as the session's copy here ends, whether the
// session ends everywhere (deleted by the client, the application or
// another instance: its tasks go with it) rather than on this instance
// alone (the handler closing, or the copy idle here: other instances may
// go on serving it, and its tasks stay to their lifetime).
func (s *httpSession) SessionDeleted() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.ended { // the application closed it: SessionEnded deletes it
		return !s.keep.Load()
	}
	return s.why == endDeleted
}
