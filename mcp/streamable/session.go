package streamable

import (
	"context"
	"crypto/rand"
	"encoding/base32"
	"errors"
	"io"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/internal/session"
	"github.com/mcpwire/mcpwire/mcp"
)

// httpSession is one MCP session of a Streamable HTTP handler: its
// ServerSession, served body by body (ServeBodySink), and its SSE streams.
// What the session sends outside of any request goes out on its stream
// (sessionOut) to the standalone stream, which a GET attaches to.
type httpSession struct {
	h          *Handler
	id         string
	ss         *mcp.ServerSession
	c          *conn.Conn
	ctx        context.Context // ends with the session: bodies stop waiting
	cancel     context.CancelFunc
	standalone *sseStream
	slot       *session.Slot // its place in the server's count of sessions
	owner      string        // the principal it is bound to (owner.go)
	revived    bool          // re-created from the store (revive); set before initialize is served

	mu        sync.Mutex
	streams   map[string]*sseStream // streams a GET may attach to, by id
	byRequest map[string]*sseStream // POST streams by the ids of their requests
	waiting   *postAnswer           // POSTs answered as JSON unless they stream
	timer     *time.Timer           // SessionTimeout's
	ended     bool
	why       endReason // why it ended, once ended

	keep     atomic.Bool  // the handler shuts the session down: the stores keep it
	lastUsed atomic.Int64 // unix nanoseconds of the last request's start or end
	touched  atomic.Int64 // unix nanoseconds of the last SessionStore.Touch
	busy     atomic.Int32 // requests and responses in progress
}

// randomID returns n random bytes as base32 without padding: visible ASCII
// (A–Z, 2–7), from crypto/rand.
func randomID(n int) string {
	b := make([]byte, n)
	rand.Read(b) // never fails (crypto/rand's contract since Go 1.24)
	return base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b)
}

// newHTTPSession starts a session of h's server for the request r, not
// yet registered, if the server's bounds on sessions allow one more (else
// a *sessionRefused) and the handler is not shutting down (else
// session.ErrClosed).
func (h *Handler) newHTTPSession(r *http.Request, id string) (*httpSession, error) {
	slot, err := reserve(&h.sessions, r)
	if err != nil {
		return nil, err
	}
	s := &httpSession{h: h, id: id, slot: slot, owner: ownerOf(r), streams: map[string]*sseStream{}, byRequest: map[string]*sseStream{}}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.standalone = &sseStream{sess: s, id: randomID(8), standalone: true}
	if h.shared != nil { // one stream on every instance
		s.standalone.id, s.standalone.shared = standaloneID(id), h.shared
	}
	s.streams[s.standalone.id] = s.standalone
	out := &sessionOut{s: s, done: make(chan struct{})}
	ss, err := h.srv.ConnectTransport(s.ctx, conn.NewMessageStream(out, nil), &conn.Peer{Transport: "http", Addr: r.RemoteAddr}, s)
	if err != nil {
		s.cancel()
		slot.Release()
		return nil, err
	}
	s.ss, s.c = ss, ss.Conn()
	s.use()
	return s, nil
}

// priming reports whether the session's streams open with a priming
// event: an event with an id and empty data, which clients of versions
// before 2025-11-25 may not expect.
func (s *httpSession) priming() bool {
	v := s.ss.ProtocolVersion()
	return v != "" && v >= mcp.Version20251125
}

// use marks the session used now.
func (s *httpSession) use() { s.lastUsed.Store(time.Now().UnixNano()) }

// begin and end bracket a request or a response in progress: a busy
// session does not expire. A quiet one (pings, or responses, only) is no
// activity: it does not restart the idle clock (KeepAlive).
func (s *httpSession) begin(quiet bool) {
	s.busy.Add(1)
	if !quiet {
		s.use()
	}
}

func (s *httpSession) end(quiet bool) {
	s.busy.Add(-1)
	if !quiet {
		s.use()
	}
}

// armTimer starts the idle timer (SessionTimeout), and reports whether
// the session is still live: it does nothing to one that ended.
func (s *httpSession) armTimer() bool {
	d := s.h.opts.SessionTimeout
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.ended && d > 0 {
		s.timer = time.AfterFunc(d, s.idleCheck)
	}
	return !s.ended
}

// idleCheck ends the session if it has been idle for SessionTimeout, or
// looks again when it would be.
func (s *httpSession) idleCheck() {
	d := s.h.opts.SessionTimeout
	idle := time.Since(time.Unix(0, s.lastUsed.Load()))
	if s.busy.Load() > 0 || idle < d {
		s.mu.Lock()
		if !s.ended {
			s.timer.Reset(max(d-idle, d/4, time.Millisecond))
		}
		s.mu.Unlock()
		return
	}
	s.h.log.Debug("mcp: http session expired", "session", s.id)
	s.close(endExpired)
}

// Why a session ends.
type endReason uint8

const (
	endClosed  endReason = iota // the handler closes: other instances may go on
	endDeleted                  // the client or the application ended it, or another instance did
	endExpired                  // idle past SessionTimeout
	endGone                     // deleted through the store by another instance: nothing left to delete
)

// close ends the session once: it is forgotten by the handler (and, when
// deleted, by the stores), its connection is closed, and its responses
// end.
func (s *httpSession) close(why endReason) {
	s.mu.Lock()
	if s.ended {
		s.mu.Unlock()
		return
	}
	s.ended, s.why = true, why
	if s.timer != nil {
		s.timer.Stop()
	}
	streams := make([]*sseStream, 0, len(s.streams))
	for _, st := range s.streams {
		streams = append(streams, st)
	}
	s.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), storeTimeout)
	defer cancel()
	// The store first, then the handler's map: a request that no longer
	// finds the session in the map must not find it in the store either,
	// or it would revive a session deleted everywhere.
	switch why {
	case endDeleted:
		s.h.logStoreErr(s.h.store.Delete(ctx, s.id))
		s.h.logStoreErr(s.h.events.Forget(ctx, s.id))
	case endExpired:
		if _, err := s.h.store.Load(ctx, s.id); errors.Is(err, ErrSessionNotFound) { // nobody else keeps it alive
			if s.h.sharedSessions != nil { // the other instances' copies end too
				s.h.logStoreErr(s.h.store.Delete(ctx, s.id))
			}
			s.h.logStoreErr(s.h.events.Forget(ctx, s.id))
		}
	}
	s.h.forget(s)
	s.slot.Release() // if it was never added
	s.cancel()
	_ = s.ss.Close()
	for _, st := range streams {
		st.mu.Lock()
		st.done = true
		switch {
		case st.writer == nil:
		case st.standalone:
			st.detachLocked(false)
		default: // what is queued (an answer, say) is still written out
			signal(st.writer.wake)
		}
		st.mu.Unlock()
	}
}

// Shutdown ends the session gracefully (conn.Conn.Shutdown), then closes
// it; the stores keep it. It implements session.Session.
func (s *httpSession) Shutdown(ctx context.Context) error {
	s.keep.Store(true)
	err := s.c.Shutdown(ctx)
	s.close(endClosed)
	return err
}

// Close ends the session at once; the stores keep it. It implements
// session.Session.
func (s *httpSession) Close() error {
	s.close(endClosed)
	return nil
}

// storeTimeout bounds the store calls made outside of any request.
const storeTimeout = 5 * time.Second

// SessionEnded implements mcp.SessionTransport: the ServerSession ended — on
// its own (the application closed it: it is deleted everywhere), or
// because close or Shutdown ended it (then this does nothing more).
func (s *httpSession) SessionEnded() {
	if s.keep.Load() {
		s.close(endClosed)
	} else {
		s.close(endDeleted)
	}
}

// connEnded reports whether the session's connection has ended (the
// application closed it), whether or not SessionEnded has run yet.
func (s *httpSession) connEnded() bool {
	select {
	case <-s.c.Done():
		return true
	default:
		return false
	}
}

// CloseStream implements mcp.SessionTransport (ServerRequest.CloseSSEStream).
func (s *httpSession) CloseStream(id []byte) bool {
	s.mu.Lock()
	st := s.byRequest[string(id)]
	var p *postAnswer
	if st == nil {
		p = s.awaiting(id)
	}
	s.mu.Unlock()
	if p != nil {
		return p.closeStream()
	}
	return st != nil && st.closeResponse()
}

// await lists p among the POSTs waiting for their answer, for CloseStream.
func (s *httpSession) await(p *postAnswer) {
	s.mu.Lock()
	p.next = s.waiting
	if p.next != nil {
		p.next.prev = p
	}
	s.waiting = p
	s.mu.Unlock()
}

// unawait takes p off the list.
func (s *httpSession) unawait(p *postAnswer) {
	s.mu.Lock()
	if p.prev != nil {
		p.prev.next = p.next
	} else {
		s.waiting = p.next
	}
	if p.next != nil {
		p.next.prev = p.prev
	}
	p.prev, p.next = nil, nil
	s.mu.Unlock()
}

// awaiting returns the waiting POST with a request of this id, or nil.
// Called under s.mu, which keeps the bodies of the listed POSTs valid.
func (s *httpSession) awaiting(id []byte) *postAnswer {
	for p := s.waiting; p != nil; p = p.next {
		if slices.Contains(s.h.scan.requestIDs(p.body), string(id)) {
			return p
		}
	}
	return nil
}

// newPostStream makes the stream of a POST carrying requests with these
// ids (as received).
func (s *httpSession) newPostStream(ids []string) *sseStream {
	st := &sseStream{sess: s, id: randomID(8), reqIDs: ids}
	s.mu.Lock()
	if s.ended {
		st.done = true
	} else {
		s.streams[st.id] = st
		for _, id := range ids {
			s.byRequest[id] = st
		}
	}
	s.mu.Unlock()
	return st
}

// streamDone forgets a POST's stream once done: a GET resuming it is
// served from the store. Called under st.mu.
func (s *httpSession) streamDone(st *sseStream) {
	if st.standalone {
		return
	}
	s.mu.Lock()
	delete(s.streams, st.id)
	for _, id := range st.reqIDs {
		if s.byRequest[id] == st {
			delete(s.byRequest, id)
		}
	}
	s.mu.Unlock()
}

// stream returns the live stream with this id, or nil.
func (s *httpSession) stream(id string) *sseStream {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.streams[id]
}

// sessionOut is the message connection under a session's conn.Conn: it
// reads nothing (the client's messages come as bodies) and sends what the
// session sends outside of any request to the standalone stream.
type sessionOut struct {
	s    *httpSession
	done chan struct{}
	once sync.Once
}

// ReadMessage blocks until the connection closes: nothing comes this way.
func (o *sessionOut) ReadMessage() ([]byte, error) {
	<-o.done
	return nil, io.EOF
}

// WriteMessage emits msg on the standalone stream.
func (o *sessionOut) WriteMessage(msg []byte) error {
	o.s.standalone.emit(msg)
	return nil
}

// Close ends ReadMessage.
func (o *sessionOut) Close() error {
	o.once.Do(func() { close(o.done) })
	return nil
}

// PingSink implements mcp.SessionTransport: a keep-alive ping goes on the
// standalone stream while a GET holds it open, else on a POST's stream
// still open; with neither, the client cannot be reached. A ping whose
// stream closes between the choice and the send is dropped (and missed):
// kept for a later replay, it would only be answered late.
func (s *httpSession) PingSink() func(msg []byte) {
	if s.standalone.carrying() {
		return func(msg []byte) { s.standalone.offer(msg) }
	}
	s.mu.Lock()
	open := make([]*sseStream, 0, len(s.streams))
	for _, st := range s.streams {
		if !st.standalone {
			open = append(open, st)
		}
	}
	s.mu.Unlock()
	for _, st := range open { // st.mu after s.mu, never under it
		if st.carrying() {
			return func(msg []byte) { st.offer(msg) }
		}
	}
	return nil
}
