package client

import (
	"errors"
	"sync"
	"time"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/transport"
)

// session is one open JSON-RPC session of a client, and what the client
// remembers about it: the ids of the calls whose callers gave up, so that
// their late answers are told from duplicates.
type session struct {
	c  *conn.Conn
	st *counters

	mu        sync.Mutex
	abandoned map[string]struct{} // ids of calls given up, answer not yet seen
	order     []string            // those ids, oldest first (some already seen)
}

// maxAbandoned bounds the ids remembered per session: past it the oldest
// is forgotten, and its late answer counts as a duplicate.
const maxAbandoned = 1024

// openSession starts a session on s with the client's session options,
// counting what reaches no caller.
func openSession(s conn.Stream, o *conn.Options, st *counters) *session {
	ss := &session{st: st, abandoned: make(map[string]struct{})}
	so := *o
	userUnmatched := o.OnUnmatched
	so.OnUnmatched = func(why conn.Unmatched, id []byte) {
		ss.unmatched(why, id)
		if userUnmatched != nil {
			userUnmatched(why, id)
		}
	}
	so.Metrics = &sessionMetrics{st: st, next: o.Metrics}
	ss.c = conn.NewStream(&countingStream{Stream: s, st: st}, &so)
	return ss
}

// alive reports whether the session can still carry calls.
func (s *session) alive() bool {
	select {
	case <-s.c.Done():
		return false
	default:
		return true
	}
}

// abandon remembers the id of a call whose caller gave up.
func (s *session) abandon(id []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.order) >= maxAbandoned {
		delete(s.abandoned, s.order[0])
		s.order = s.order[1:]
	}
	k := string(id)
	s.abandoned[k] = struct{}{}
	s.order = append(s.order, k)
}

// unmatched counts a response that reached no caller. Reader only.
func (s *session) unmatched(why conn.Unmatched, id []byte) {
	if why == conn.UnmatchedUnknownID {
		s.st.unknownID.Add(1)
		return
	}
	s.mu.Lock()
	_, late := s.abandoned[string(id)]
	delete(s.abandoned, string(id))
	s.mu.Unlock()
	if late {
		s.st.late.Add(1)
	} else {
		s.st.duplicate.Add(1)
	}
}

// callError turns what a session call returned into what the client's
// caller gets: a transport failure becomes a *TransportError that may have
// been sent, a call given up is remembered; answers (an HTTP status that
// carries none, a *transport.HTTPStatusError, among them) and the
// caller's own mistakes go as they are.
func (s *session) callError(err error) error {
	var e *codec.Error
	var ce *conn.CanceledCallError
	var he *transport.HTTPStatusError
	switch {
	case errors.As(err, &e), errors.As(err, &he), errors.Is(err, conn.ErrBadParams):
		return err
	case errors.As(err, &ce):
		s.abandon(ce.ID)
		return err
	}
	return &TransportError{Sent: true, Err: err}
}

// countingStream counts the frames over the session's limit as its
// session reads them; the session answers and skips them.
type countingStream struct {
	conn.Stream
	st *counters
}

func (s *countingStream) Next() ([]byte, error) {
	msg, err := s.Stream.Next()
	if err != nil && errors.Is(err, codec.ErrFrameTooLarge) {
		s.st.oversized.Add(1)
	}
	return msg, err
}

// errNoDeadline is what the deadline methods of a countingStream report
// when the stream beneath has none (the session then does without).
var errNoDeadline = errors.New("client: the stream has no deadlines")

// SetReadDeadline is the stream's own, if it has one.
func (s *countingStream) SetReadDeadline(t time.Time) error {
	if d, ok := s.Stream.(interface{ SetReadDeadline(time.Time) error }); ok {
		return d.SetReadDeadline(t)
	}
	return errNoDeadline
}

// SetWriteDeadline is the stream's own, if it has one.
func (s *countingStream) SetWriteDeadline(t time.Time) error {
	if d, ok := s.Stream.(interface{ SetWriteDeadline(time.Time) error }); ok {
		return d.SetWriteDeadline(t)
	}
	return errNoDeadline
}

// sessionMetrics counts the messages of the server that were no JSON-RPC
// message at all, and passes everything on to the user's Metrics.
type sessionMetrics struct {
	st   *counters
	next conn.Metrics
}

func (m *sessionMetrics) Answered(method string, code codec.Code, d time.Duration) {
	if m.next != nil {
		m.next.Answered(method, code, d)
	}
}

func (m *sessionMetrics) Refused(method string, code codec.Code) {
	if method == conn.InvalidMessage {
		m.st.invalid.Add(1)
	}
	if m.next != nil {
		m.next.Refused(method, code)
	}
}

func (m *sessionMetrics) InFlight(delta int) {
	if m.next != nil {
		m.next.InFlight(delta)
	}
}
