package mcp

import "context"

// The lists whose changes are announced, as bits of ServerSession.notes.
const (
	changedTools uint32 = 1 << iota
	changedResources
	changedPrompts
)

var changedMethods = [...]struct {
	bit    uint32
	method string
}{
	{changedTools, "notifications/tools/list_changed"},
	{changedResources, "notifications/resources/list_changed"},
	{changedPrompts, "notifications/prompts/list_changed"},
}

// listChanged tells every initialised session that declared listChanged
// for the feature that its list changed, and every subscription that asked
// for it (subscriptions/listen). It never blocks the caller on a
// slow client: each session sends from a goroutine of its own, started
// only while there is something to send, and changes that pile up
// meanwhile are announced once. Under ServerOptions.Broadcast the change
// is published for the other instances too.
func (s *Server) listChanged(bit uint32) {
	s.listChangedLocal(bit)
	if s.opts.Broadcast != nil {
		s.publishListChange(bit)
	}
}

// listChangedLocal is listChanged for this server's sessions.
func (s *Server) listChangedLocal(bit uint32) {
	for _, ss := range s.Sessions() {
		if ss.announces(bit) {
			ss.queueNote(bit)
		}
	}
	s.eachListener(func(l *listener) {
		if l.wants(bit) {
			l.queue(bit)
		}
	})
}

// announces reports whether the session was promised list_changed
// notifications of this kind.
func (ss *ServerSession) announces(bit uint32) bool {
	c := ss.caps
	if c == nil { // not initialized, or stateless: nothing promised
		return false
	}
	switch bit {
	case changedTools:
		return c.Tools != nil && c.Tools.ListChanged
	case changedResources:
		return c.Resources != nil && c.Resources.ListChanged
	case changedPrompts:
		return c.Prompts != nil && c.Prompts.ListChanged
	}
	return false
}

func (ss *ServerSession) queueNote(bit uint32) {
	ss.notes.Or(bit)
	if ss.noting.CompareAndSwap(false, true) {
		go ss.sendNotes()
	}
}

// sendNotes sends the notifications due until none is left.
func (ss *ServerSession) sendNotes() {
	for {
		due := ss.notes.Swap(0)
		if due == 0 {
			ss.noting.Store(false)
			// A change queued after the Swap but before the Store found
			// noting set and left it to us.
			if ss.notes.Load() == 0 || !ss.noting.CompareAndSwap(false, true) {
				return
			}
			continue
		}
		for _, m := range changedMethods {
			if due&m.bit != 0 && !ss.closed.Load() {
				_ = ss.notify(context.Background(), m.method, nil)
			}
		}
	}
}
