package streamable

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/internal/httpjson"
	"github.com/mcpwire/mcpwire/internal/session"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/transport"
)

// SSEHandler serves a Server over the HTTP+SSE transport of protocol
// version 2024-11-05, for clients that predate Streamable HTTP. A GET
// opens a session and its event stream: the first event, "endpoint",
// gives the URL to POST messages to (the handler's own path with a
// sessionId query parameter); every message of the server — responses
// included — follows as a "message" event. A POST there is answered 202
// once the session has taken the message. The session ends when the GET's
// connection does.
//
// Of Options it uses SessionTimeout (a session whose client has
// POSTed no request for that long, pings and responses aside, and has
// none running, ends: its stream closes), MaxSessions and
// MaxSessionsPerPrincipal (counted together with the server's Streamable
// HTTP sessions; a GET past them is refused with 503), MaxBodyBytes,
// ReadTimeout, WriteTimeout, the allow lists (Host and Origin are checked
// as by the Streamable HTTP handler) and CORS; the others concern
// Streamable HTTP only. Mount it at a path of its own (/sse, say) beside
// the Streamable HTTP endpoint. Safe for concurrent use.
type SSEHandler struct {
	srv   *mcp.Server
	opts  Options
	guard transport.HostPolicy
	inner http.Handler // serveMethods behind Options.Middleware
	cors  *cors        // nil: none
	scan  bodyScanner

	sessions session.Registry[string, *legacySession] // open, by id
}

// NewSSEHandler returns a handler serving srv over HTTP+SSE. opts may be
// nil.
func NewSSEHandler(srv *mcp.Server, opts *Options) *SSEHandler {
	lim := srv.Limits()
	o := opts.withDefaults(lim.MaxFrameBytes)
	h := &SSEHandler{
		srv:   srv,
		opts:  o,
		guard: o.hostPolicy(),
		cors:  newCORS(o.CORS, http.MethodGet, http.MethodPost),
		scan:  bodyScanner{limits: lim},
	}
	boundSessions(&h.sessions, srv, &o)
	h.inner = o.wrap(http.HandlerFunc(h.serveMethods))
	return h
}

// ServeHTTP implements http.Handler.
func (h *SSEHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	httpjson.BoundBody(w, r, h.opts.ReadTimeout) // before any answer: see httpjson.ReadBody
	if !admit(h.guard, h.cors, w, r) {
		return
	}
	h.inner.ServeHTTP(w, r)
}

// serveMethods serves a request admitted, behind Options.Middleware.
func (h *SSEHandler) serveMethods(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodGet:
		h.open(w, r)
	case http.MethodPost:
		h.post(w, r)
	default:
		w.Header().Set("Allow", "GET, POST")
		httpjson.Error(w, http.StatusMethodNotAllowed, codec.CodeInvalidRequest, "Method not allowed")
	}
}

// legacySession is one session of an SSEHandler: the message connection
// under its conn.Conn reads the bodies POSTed to it and writes events to
// the GET's response.
type legacySession struct {
	id    string
	owner string // the principal it is bound to (owner.go)
	in    chan []byte
	done  chan struct{}
	once  sync.Once

	// connected is closed once c is known (set, or never to be): its
	// connection serves the POSTed messages from within ConnectTransport,
	// before open can set c, and Shutdown must wait for it.
	connected     chan struct{}
	connectedOnce sync.Once

	mu     sync.Mutex // the response is written by the session's writer until the GET returns
	out    *sseResponse
	c      *conn.Conn // once connected
	ended  bool
	broken chan struct{} // closed when a write fails, or to end the session (end)
	timer  *time.Timer   // SessionTimeout's, if any

	lastUsed atomic.Int64 // unix nanoseconds of the last POST holding a request
}

// ReadMessage returns the next body POSTed to the session.
func (s *legacySession) ReadMessage() ([]byte, error) {
	select {
	case b := <-s.in:
		return b, nil
	case <-s.done:
		return nil, io.EOF
	}
}

// WriteMessage writes msg to the GET's stream as a "message" event.
func (s *legacySession) WriteMessage(msg []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return io.ErrClosedPipe
	}
	s.out.buf = appendSSEBody(s.out.buf, "message", msg) // no id: not resumable
	if err := s.out.flush(); err != nil {
		s.endLocked()
		close(s.broken)
		return err
	}
	return nil
}

// Close ends the session at once: ReadMessage returns io.EOF, nothing
// more is written, and the GET returns. Its connection calls it as it
// closes; it implements session.Session too.
func (s *legacySession) Close() error {
	s.once.Do(func() { close(s.done) })
	s.end()
	return nil
}

// Shutdown ends the session gracefully: it takes no new request, and the
// running ones get until ctx is done to finish and have their answers
// written (conn.Conn.Shutdown); then it is closed. It implements
// session.Session.
func (s *legacySession) Shutdown(ctx context.Context) error {
	select {
	case <-s.connected:
	case <-ctx.Done():
	}
	s.mu.Lock()
	c := s.c
	s.mu.Unlock()
	var err error
	if c != nil {
		err = c.Shutdown(ctx)
	}
	_ = s.Close()
	return err
}

// markConnected says that c is known: set, or never to be.
func (s *legacySession) markConnected() { s.connectedOnce.Do(func() { close(s.connected) }) }

// end ends the session from outside its GET (Close, the idle timeout):
// nothing more is written, and the GET returns.
func (s *legacySession) end() {
	s.mu.Lock()
	if !s.ended {
		s.endLocked()
		close(s.broken)
	}
	s.mu.Unlock()
}

// endLocked marks the session ended: nothing is written to the response
// from now on. Under mu.
func (s *legacySession) endLocked() {
	s.ended = true
	if s.timer != nil {
		s.timer.Stop()
	}
}

// use marks the session used now.
func (s *legacySession) use() { s.lastUsed.Store(time.Now().UnixNano()) }

// armIdle ends the session once it has been idle for d: no POST holding
// a request (pings and responses aside, as for Streamable HTTP) and no
// request of its running on c. While one runs, it looks every d/4: the
// session ends between 3d/4 and d after its last request's end.
func (s *legacySession) armIdle(d time.Duration, c *conn.Conn, log *slog.Logger) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return
	}
	s.timer = time.AfterFunc(d, func() {
		next := time.Duration(0)
		if c.Busy() { // in use now: look again in a while
			s.use()
			next = d / 4
		} else if idle := time.Since(time.Unix(0, s.lastUsed.Load())); idle < d {
			next = d - idle
		}
		if next > 0 {
			s.mu.Lock()
			if !s.ended {
				s.timer.Reset(max(next, time.Millisecond))
			}
			s.mu.Unlock()
			return
		}
		log.Debug("mcp: http+sse session expired", "session", s.id)
		s.end()
	})
}

// open serves GET: a new session, its endpoint event, then its messages
// until the client goes away or the session ends.
func (h *SSEHandler) open(w http.ResponseWriter, r *http.Request) {
	if _, sse := accepts(r.Header.Values("Accept")); !sse {
		httpjson.Error(w, http.StatusNotAcceptable, codec.CodeInvalidRequest, "Not Acceptable: accept text/event-stream")
		return
	}
	slot, err := reserve(&h.sessions, r)
	if rf, ok := errors.AsType[*sessionRefused](err); ok {
		refuseSession(w, rf.e)
		return
	} else if err != nil { // session.ErrClosed
		refuseShutdown(w)
		return
	}
	s := &legacySession{id: randomID(16), owner: ownerOf(r), in: make(chan []byte), done: make(chan struct{}), broken: make(chan struct{}),
		connected: make(chan struct{})}
	defer s.markConnected() // when open returns before c is set
	s.use()
	if err := h.sessions.AddReserved(s.id, s, slot); err != nil { // closed meanwhile (an id is never reused)
		slot.Release()
		refuseShutdown(w)
		return
	}
	defer h.sessions.Remove(s.id, s)

	s.out = startSSE(w, http.StatusOK, &h.opts)
	endpoint := (&url.URL{Path: r.URL.Path, RawQuery: url.Values{"sessionId": {s.id}}.Encode()}).String()
	s.mu.Lock()
	s.out.buf = appendSSEBody(s.out.buf, "endpoint", []byte(endpoint))
	err = s.out.flush()
	s.mu.Unlock()
	if err != nil {
		return
	}
	ss, err := h.srv.ConnectTransport(r.Context(), conn.NewMessageStream(s, nil), &conn.Peer{Transport: "sse", Addr: r.RemoteAddr}, legacyHook{s})
	if err != nil {
		return
	}
	s.mu.Lock()
	s.c = ss.Conn()
	s.mu.Unlock()
	s.markConnected()
	if d := h.opts.SessionTimeout; d > 0 {
		s.armIdle(d, ss.Conn(), h.opts.logger(h.srv))
	}
	select {
	case <-r.Context().Done():
	case <-s.broken:
	case <-ss.Done():
	}
	s.mu.Lock()
	s.endLocked() // no write to the response once this returns
	s.mu.Unlock()
	_ = ss.Close()
	<-ss.Done() // the server has forgotten it: Shutdown and Close wait for that
}

// post serves POST ?sessionId=…: one message for the session.
func (h *SSEHandler) post(w http.ResponseWriter, r *http.Request) {
	id := r.URL.Query().Get("sessionId")
	if id == "" {
		httpjson.Error(w, http.StatusBadRequest, codec.CodeInvalidRequest, "Bad Request: the sessionId parameter is required")
		return
	}
	s, _ := h.sessions.Get(id)
	if s == nil || s.owner != ownerOf(r) { // owner.go: another principal's is unknown too
		if s != nil {
			h.opts.logger(h.srv).Info("mcp: a session's id came with another principal's credentials; answered as unknown")
		}
		httpjson.Error(w, http.StatusNotFound, codec.CodeInvalidRequest, "Not Found: no such session")
		return
	}
	if !httpjson.IsJSON(r.Header.Get("Content-Type")) {
		httpjson.Error(w, http.StatusUnsupportedMediaType, codec.CodeInvalidRequest, "Unsupported Media Type: the body must be application/json")
		return
	}
	body, err := httpjson.ReadBody(w, r, nil, h.opts.MaxBodyBytes, 0) // bounded in ServeHTTP
	if err != nil || !grantsScopes(&h.scan, h.srv, &h.opts, w, r, body) {
		return
	}
	if info, err := h.scan.classify(body, false); err != nil || !info.quiet {
		s.use()
	}
	select {
	case s.in <- body:
		w.WriteHeader(http.StatusAccepted)
	case <-s.done:
		httpjson.Error(w, http.StatusNotFound, codec.CodeInvalidRequest, "Not Found: the session ended")
	case <-r.Context().Done():
	}
}

// Len returns the number of sessions the handler holds: those whose GET
// is open.
func (h *SSEHandler) Len() int { return h.sessions.Len() }

// Close ends every session at once, and refuses new ones from then on
// (503): their event streams end. It returns once every session has
// ended.
func (h *SSEHandler) Close() error { return h.sessions.Close() }

// Shutdown ends every session gracefully, and refuses new ones from then
// on (503): each session stops taking requests, and its running handlers
// get until ctx is done to finish and have their answers written to its
// event stream (conn.Conn.Shutdown); then it is closed as by Close. It
// returns once every session has ended, or when ctx is done. Call it
// before http.Server.Shutdown, whose wait for responses would otherwise
// include every open event stream.
func (h *SSEHandler) Shutdown(ctx context.Context) error { return h.sessions.Shutdown(ctx) }
