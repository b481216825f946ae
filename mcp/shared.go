package mcp

import (
	"context"
	"crypto/rand"
	"encoding/base32"
	"log/slog"
	"sync"
	"time"
)

// What several instances of a server share through the hooks
// ServerOptions.SessionState and ServerOptions.Broadcast (package
// redisstore implements both): each instance's Server keeps one
// subscription per hook (a watch), started when its first session needs
// it and tried again while it fails, and names itself in what it sends
// with a random origin so that it ignores its own messages.

// SharedSession is implemented by a SessionTransport whose session
// several instances of a server may each hold a copy of (Streamable HTTP
// with a SessionStore that instances share). Its methods must be safe
// for concurrent use.
type SharedSession interface {
	// SessionID returns the session's id, the same on every instance
	// (Mcp-Session-Id).
	SessionID() string
	// Revived reports whether this copy was re-created from the stored
	// session rather than initialised by its client here.
	Revived() bool
	// SessionDeleted reports, as this copy ends, whether the session ends
	// everywhere (deleted by the client, the application or another
	// instance: its 2025-11-25 tasks go with it) rather than on this
	// instance alone (other instances may go on serving it, and its tasks
	// stay for them, to their lifetime).
	SessionDeleted() bool
}

// watchTimeout bounds a watch's attempt to subscribe without a
// deadline of its own; watchRetry is the wait before the next one.
const (
	watchTimeout = 2 * time.Second
	watchRetry   = 2 * time.Second
)

// watch keeps a server subscribed to one hook's messages. Safe for
// concurrent use.
type watch struct {
	what  string
	start func(ctx context.Context) error
	want  func() bool // whether to go on trying after a failure
	log   *slog.Logger

	mu     sync.Mutex
	on     bool // subscribed
	trying bool // an attempt, or the wait before the next, is under way
}

// ensure subscribes, once: the first caller tries at once within ctx (so
// that a session's first request finds it subscribed), and a failure is
// tried again every watchRetry while want says so. Nil does nothing.
func (w *watch) ensure(ctx context.Context) {
	if w == nil {
		return
	}
	w.mu.Lock()
	if w.on || w.trying {
		w.mu.Unlock()
		return
	}
	w.trying = true
	w.mu.Unlock()
	w.try(ctx)
}

func (w *watch) try(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, watchTimeout)
	err := w.start(ctx)
	cancel()
	if err == nil {
		w.mu.Lock()
		w.on, w.trying = true, false
		w.mu.Unlock()
		return
	}
	w.log.Warn("mcp: cannot subscribe to the other instances' messages; trying again", "hook", w.what, "err", err)
	time.AfterFunc(watchRetry, func() {
		if w.want() {
			w.try(context.Background())
			return
		}
		w.mu.Lock()
		w.trying = false
		w.mu.Unlock()
	})
}

// share sets up what the server shares with other instances, if
// anything: its origin and the watches of its hooks.
func (s *Server) share() {
	st, bc := s.opts.SessionState, s.opts.Broadcast
	if st == nil && bc == nil {
		return
	}
	s.origin = newOrigin()
	if st != nil {
		s.copies = map[string]map[*ServerSession]struct{}{}
		s.stateWatch = &watch{what: "session state", want: s.wantsWatch, log: s.log,
			start: func(ctx context.Context) error { return st.WatchSessionStates(ctx, s.stateChanged) }}
	}
	if bc != nil {
		s.noticeWatch = &watch{what: "broadcast", want: s.wantsWatch, log: s.log,
			start: func(ctx context.Context) error { return bc.WatchNotices(ctx, s.noticed) }}
	}
}

// wantsWatch reports whether the server has sessions or subscriptions
// that messages from other instances may concern.
func (s *Server) wantsWatch() bool {
	if s.sessions.Len() > 0 {
		return true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.listeners) > 0
}

// newOrigin returns a random name for a server among the instances.
func newOrigin() string {
	b := make([]byte, 10)
	rand.Read(b) // never fails (crypto/rand's contract since Go 1.24)
	return base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b)
}
