package mcp

import (
	"context"
	"sync/atomic"
)

// Shared session state: under ServerOptions.SessionState, what a session
// sets after initialize (its log level and resource subscriptions) is
// saved when it changes and loaded when an instance re-creates the
// session, and a change saved by one instance's copy makes the others
// load it again. The copies of a session on this server are indexed by
// its id (Server.copies); each has a sharedState.

// SessionState is what a session sets after initialize, as a
// SessionStateStore keeps it.
type SessionState struct {
	// Level is the level set with logging/setLevel ("" when none was).
	Level LoggingLevel
	// Subscriptions are the resource URIs subscribed to, in no order.
	Subscriptions []string
}

// SessionStateChange is one change of a session's state: a level set, or
// a resource subscribed to or unsubscribed from.
type SessionStateChange struct {
	// Session is the session's id (SharedSession.SessionID).
	Session string
	// Origin names the server that made the change; the store hands it
	// to the watchers as it is.
	Origin string
	// Level, if not empty, is the level set; otherwise URI was
	// subscribed to (Subscribed) or unsubscribed from.
	Level      LoggingLevel
	URI        string
	Subscribed bool
}

// SessionStateStore shares the state of sessions between the instances
// of a server (ServerOptions.SessionState; package redisstore has one).
// It is called only for sessions whose transport is a SharedSession: on
// logging/setLevel, resources/subscribe and resources/unsubscribe, when
// an instance re-creates a session, and when another instance changed
// one this instance holds; never on other requests. Implementations must
// be safe for concurrent use.
type SessionStateStore interface {
	// LoadSessionState returns the state saved for the session (the zero
	// SessionState when none is).
	LoadSessionState(ctx context.Context, session string) (SessionState, error)
	// SaveSessionState records a change and then tells every watcher
	// (this process's too) the change's Session and Origin.
	SaveSessionState(ctx context.Context, ch *SessionStateChange) error
	// WatchSessionStates calls changed with the session and origin of
	// every change saved from when it returns nil until the store is
	// closed. changed must not block. A change may be missed while the
	// store is unreachable.
	WatchSessionStates(ctx context.Context, changed func(session, origin string)) error
}

// sharedState ties a session's copy to the copies other instances hold.
type sharedState struct {
	id string
	// gen counts the changes saved by this copy: a load that started
	// before one is not applied.
	gen     atomic.Uint64
	stale   atomic.Bool // another copy changed the state since the last load
	loading atomic.Bool // a goroutine is loading it
}

// joinShared, run by initialize, makes a session whose transport is a
// SharedSession one of the copies of its session, and loads the state of
// a copy re-created from the stored session.
func (s *Server) joinShared(ctx context.Context, ss *ServerSession) {
	t, ok := ss.transport.(SharedSession)
	if !ok || t.SessionID() == "" {
		return
	}
	sh := &sharedState{id: t.SessionID()}
	s.mu.Lock()
	if ss.closed.Load() {
		s.mu.Unlock()
		return
	}
	ss.shared = sh
	m := s.copies[sh.id]
	if m == nil {
		m = map[*ServerSession]struct{}{}
		s.copies[sh.id] = m
	}
	m[ss] = struct{}{}
	s.mu.Unlock()
	s.stateWatch.ensure(ctx) // before loading: no change is missed in between
	if t.Revived() {
		s.loadState(ctx, ss)
	}
}

// leaveSharedLocked forgets a copy that ended; s.mu is held.
func (s *Server) leaveSharedLocked(ss *ServerSession) {
	if sh := ss.shared; sh != nil {
		if m := s.copies[sh.id]; m != nil {
			delete(m, ss)
			if len(m) == 0 {
				delete(s.copies, sh.id)
			}
		}
	}
}

// saveState records a change the session made on this copy for the other
// copies. A store that fails is logged: the change holds on this copy.
func (s *Server) saveState(ctx context.Context, ss *ServerSession, ch SessionStateChange) {
	ch.Session, ch.Origin = ss.shared.id, s.origin
	if err := s.opts.SessionState.SaveSessionState(ctx, &ch); err != nil {
		s.log.Warn("mcp: saving a session's state for the other instances; it holds on this one only", "err", err)
	}
}

// loadAttempts bounds how often loadState reads the state again because
// this copy changed it meanwhile.
const loadAttempts = 3

// loadState replaces the copy's level and subscriptions with the saved
// ones. A store that fails is logged and the copy keeps what it has.
func (s *Server) loadState(ctx context.Context, ss *ServerSession) {
	sh := ss.shared
	for range loadAttempts {
		gen := sh.gen.Load()
		st, err := s.opts.SessionState.LoadSessionState(ctx, sh.id)
		if err != nil {
			s.log.Warn("mcp: loading a session's state from the other instances", "err", err)
			return
		}
		s.mu.Lock()
		if sh.gen.Load() == gen {
			s.applyStateLocked(ss, &st)
			s.mu.Unlock()
			return
		}
		s.mu.Unlock()
	}
}

// applyStateLocked makes st the copy's state; s.mu is held.
func (s *Server) applyStateLocked(ss *ServerSession, st *SessionState) {
	if ss.closed.Load() {
		return
	}
	want := make(map[string]struct{}, len(st.Subscriptions))
	for _, u := range st.Subscriptions {
		want[u] = struct{}{}
	}
	for u := range ss.subs {
		if _, ok := want[u]; !ok {
			s.unsubscribeLocked(ss, u)
		}
	}
	for u := range want {
		s.subscribeLocked(ss, u)
	}
	sev := s.opts.LogLevel.severity()
	if st.Level.Valid() {
		sev = st.Level.severity()
	}
	ss.level.Store(sev)
}

// stateChanged is the watch's callback (it must not block): the copies
// of the session on this server load its state again, unless this server
// made the change.
func (s *Server) stateChanged(id, origin string) {
	if origin == s.origin {
		return
	}
	s.mu.Lock()
	copies := make([]*ServerSession, 0, len(s.copies[id]))
	for ss := range s.copies[id] {
		copies = append(copies, ss)
	}
	s.mu.Unlock()
	for _, ss := range copies {
		ss.shared.stale.Store(true)
		if ss.shared.loading.CompareAndSwap(false, true) {
			go s.refreshState(ss)
		}
	}
}

// refreshState loads the copy's state until no change is left unseen.
func (s *Server) refreshState(ss *ServerSession) {
	sh := ss.shared
	for {
		for sh.stale.Swap(false) && !ss.closed.Load() {
			ctx, cancel := context.WithTimeout(context.Background(), watchTimeout)
			s.loadState(ctx, ss)
			cancel()
		}
		sh.loading.Store(false)
		// A change marked after the Swap but before the Store found
		// loading set and left it to us.
		if !sh.stale.Load() || !sh.loading.CompareAndSwap(false, true) {
			return
		}
	}
}
