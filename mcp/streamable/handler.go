package streamable

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/internal/httpjson"
	"github.com/mcpwire/mcpwire/internal/session"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/transport"
)

// Handler serves a Server over MCP's Streamable HTTP
// transport (2025-03-26 and later) at one endpoint: POST carries the
// client's messages, GET opens or resumes an event stream, DELETE ends a
// session. See the package documentation (Streamable HTTP) for what it
// answers and why. Safe for concurrent use.
type Handler struct {
	srv    *mcp.Server
	opts   Options
	events EventStore
	store  SessionStore
	shared SharedEventStore // events, if shared: one standalone stream per session
	log    *slog.Logger
	guard  transport.HostPolicy
	inner  http.Handler // serveMethods behind Options.Middleware
	cors   *cors        // nil: none

	sharedSessions SharedSessionStore // store, if shared: deletions end local copies
	deletions      deletionWatch

	scan   bodyScanner
	bodies codec.BufferPool

	sessions session.Registry[string, *httpSession] // initialised, by id
	home     statelessHome                          // serves the stateless versions' requests
	answers  sync.Pool                              // of free *statelessAnswer
}

// NewHandler returns a handler serving srv (mount it at the
// endpoint's path, e.g. /mcp). opts may be nil.
func NewHandler(srv *mcp.Server, opts *Options) *Handler {
	lim := srv.Limits()
	o := opts.withDefaults(lim.MaxFrameBytes)
	lim.MaxFrameBytes = max(lim.MaxFrameBytes, o.MaxBodyBytes)
	h := &Handler{
		srv:    srv,
		opts:   o,
		events: o.EventStore,
		store:  o.SessionStore,
		log:    o.logger(srv),
		scan:   bodyScanner{limits: lim},
		guard:  o.hostPolicy(),
		cors:   newCORS(o.CORS, http.MethodGet, http.MethodPost, http.MethodDelete),
	}
	h.shared, _ = o.EventStore.(SharedEventStore)
	h.sharedSessions, _ = o.SessionStore.(SharedSessionStore)
	boundSessions(&h.sessions, srv, &o)
	h.inner = o.wrap(http.HandlerFunc(h.serveMethods))
	return h
}

// Header names of the transport.
const (
	headerSession     = "Mcp-Session-Id"
	headerVersion     = "Mcp-Protocol-Version"
	headerLastEventID = "Last-Event-Id"
)

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	httpjson.BoundBody(w, r, h.opts.ReadTimeout) // before any answer: see httpjson.ReadBody
	if !admit(h.guard, h.cors, w, r) {
		return
	}
	h.inner.ServeHTTP(w, r)
}

// serveMethods serves a request admitted, behind Options.Middleware.
func (h *Handler) serveMethods(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodPost:
		h.post(w, r)
	case http.MethodGet, http.MethodDelete:
		if mcp.IsStatelessVersion(fieldOf(r.Header, headerVersion)) {
			statelessRefused(w)
		} else if r.Method == http.MethodGet {
			h.get(w, r)
		} else {
			h.delete(w, r)
		}
	default:
		w.Header().Set("Allow", "GET, POST, DELETE")
		httpjson.Error(w, http.StatusMethodNotAllowed, codec.CodeInvalidRequest, "Method not allowed")
	}
}

// contentTypeStream is the Content-Type of an event stream, assigned to
// header maps as it is (see httpjson.ContentType).
var contentTypeStream = []string{"text/event-stream"}

// session finds the session r names, answering the request itself (400,
// 404, 500) when there is none to serve it. A quiet request (pings only)
// does not extend the session's life in the store.
func (h *Handler) session(w http.ResponseWriter, r *http.Request, quiet bool) *httpSession {
	id := fieldOf(r.Header, headerSession)
	if id == "" {
		httpjson.Error(w, http.StatusBadRequest, codec.CodeInvalidRequest, "Bad Request: the "+headerSession+" header is required")
		return nil
	}
	if v := fieldOf(r.Header, headerVersion); v != "" && !mcp.IsSupportedVersion(v) {
		httpjson.Error(w, http.StatusBadRequest, codec.CodeInvalidRequest,
			"Bad Request: unsupported "+headerVersion+" "+strconv.Quote(v)+" (supported: "+strings.Join(mcp.SupportedVersions(), ", ")+")")
		return nil
	}
	s, err := h.lookup(r, id, quiet)
	if err != nil {
		h.noSession(w, err)
		return nil
	}
	return s
}

// noSession answers a request whose session lookup failed with err.
func (h *Handler) noSession(w http.ResponseWriter, err error) {
	if rf, ok := errors.AsType[*sessionRefused](err); ok { // re-creating it would pass a bound
		refuseSession(w, rf.e)
		return
	}
	if errors.Is(err, ErrSessionNotFound) {
		httpjson.Error(w, http.StatusNotFound, codec.CodeInvalidRequest, "Not Found: no such session (it ended or expired): initialize a new one")
		return
	}
	h.log.Error("mcp: session store", "err", err)
	httpjson.Error(w, http.StatusInternalServerError, codec.CodeInternalError, "Internal error: session store unavailable")
}

// lookup returns the live session id, checking now and then that the
// store still knows it, or, unless the handler is closed, re-creates it
// from the store (a session another instance started) for r.
func (h *Handler) lookup(r *http.Request, id string, quiet bool) (*httpSession, error) {
	ctx := r.Context()
	s, _ := h.sessions.Get(id)
	if s != nil && s.owner != ownerOf(r) {
		h.log.Info("mcp: a session's id came with another principal's credentials; answered as unknown")
		return nil, ErrSessionNotFound
	}
	if s != nil && s.connEnded() {
		// Closed by the application, and the server has not told us
		// yet: end it here, as SessionEnded is about to.
		s.SessionEnded()
		return nil, ErrSessionNotFound
	}
	if s != nil && quiet {
		return s, nil
	}
	if s != nil { // while Shutdown drains it too
		return s, h.touch(ctx, s)
	}
	if h.sessions.Closed() {
		return nil, ErrSessionNotFound
	}
	state, err := h.store.Load(ctx, id)
	if err != nil {
		return nil, err
	}
	return h.revive(r, id, state)
}

// touch extends the session's life in the store, at most four times per
// SessionTimeout (once a minute without one); a session the store no
// longer knows was deleted or expired elsewhere and ends here too.
func (h *Handler) touch(ctx context.Context, s *httpSession) error {
	every := h.opts.SessionTimeout / 4
	if every <= 0 {
		every = time.Minute
	}
	now := time.Now().UnixNano()
	last := s.touched.Load()
	if now-last < int64(every) || !s.touched.CompareAndSwap(last, now) {
		return nil
	}
	err := h.store.Touch(ctx, s.id, h.ttl())
	if errors.Is(err, ErrSessionNotFound) {
		s.close(endDeleted)
		return err
	}
	h.logStoreErr(err) // a store in trouble does not end live sessions
	return nil
}

// ttl is how long the store keeps an untouched session (0: forever).
func (h *Handler) ttl() time.Duration { return max(h.opts.SessionTimeout, 0) }

func (h *Handler) logStoreErr(err error) {
	if err != nil {
		h.log.Warn("mcp: session or event store", "err", err)
	}
}

// revive re-creates a session from its stored initialize request.
// Everything negotiated comes back; the log level and subscriptions set
// later come back only through the server's mcp.ServerOptions.SessionState
// (the session says it was revived: mcp.SharedSession).
func (h *Handler) revive(r *http.Request, id string, state []byte) (*httpSession, error) {
	ctx := r.Context()
	digest, state := parseState(state)
	if digest != ownerDigest(ownerOf(r)) {
		h.log.Info("mcp: a session's id came with another principal's credentials; answered as unknown")
		return nil, ErrSessionNotFound
	}
	s, err := h.newHTTPSession(r, id)
	if errors.Is(err, session.ErrClosed) { // shut down meanwhile
		return nil, ErrSessionNotFound
	} else if err != nil {
		return nil, err
	}
	s.revived = true
	if err := s.ss.Restore(ctx, state); err != nil {
		h.log.Warn("mcp: a stored session could not be re-created", "session", id, "err", err)
		s.close(endClosed)
		return nil, ErrSessionNotFound
	}
	s.touched.Store(time.Now().UnixNano())
	h.watchDeletions(ctx)
	if other, ok := h.register(s); !ok {
		s.close(endClosed)
		if other == nil || other.owner != s.owner {
			return nil, ErrSessionNotFound
		}
		return other, nil
	}
	return s, nil
}

// register adds a new session; it fails when the handler is closed or
// (reporting it) another request registered the same id meanwhile.
func (h *Handler) register(s *httpSession) (*httpSession, bool) {
	err := h.sessions.AddReserved(s.id, s, s.slot)
	if errors.Is(err, session.ErrDuplicate) {
		other, _ := h.sessions.Get(s.id)
		return other, false
	}
	if err != nil {
		return nil, false
	}
	if !s.armTimer() { // it ended before it was added: close did not find it
		h.sessions.Remove(s.id, s)
		return nil, false
	}
	return nil, true
}

// forget removes a session that ended.
func (h *Handler) forget(s *httpSession) { h.sessions.Remove(s.id, s) }

// delete serves DELETE: the client ends its session.
func (h *Handler) delete(w http.ResponseWriter, r *http.Request) {
	s := h.session(w, r, false)
	if s == nil {
		return
	}
	s.close(endDeleted)
	w.WriteHeader(http.StatusNoContent)
}

// Len returns the number of sessions the handler holds: initialised and
// not yet ended.
func (h *Handler) Len() int { return h.sessions.Len() }

// Close ends every session and stateless request at once, and refuses
// new ones from then on (503). Their clients' responses end; the stores keep what they hold, so
// that other instances of the server sharing them may go on serving the
// sessions.
func (h *Handler) Close() error {
	h.deletions.close()
	h.home.close()
	return h.sessions.Close()
}

// Shutdown ends every session, and the stateless requests, gracefully,
// and refuses new ones from then on (503): each stops taking requests,
// and its running handlers get until ctx is done to finish and have
// their answers sent (conn.Conn.Shutdown); then it is closed as by Close. It returns once
// every session has ended, or when ctx is done. Call it before
// http.Server.Shutdown, whose wait for responses would otherwise include
// every open event stream.
func (h *Handler) Shutdown(ctx context.Context) error {
	home := make(chan error, 1)
	go func() { home <- h.home.shutdown(ctx) }()
	err := h.sessions.Shutdown(ctx)
	h.deletions.close()
	return errors.Join(err, <-home)
}

// accepts reads Accept headers: whether JSON and an event stream are
// acceptable. No header accepts anything (RFC 9110); a range with q=0
// accepts nothing.
func accepts(values []string) (json, sse bool) {
	if len(values) == 0 {
		return true, true
	}
	for _, v := range values {
		for v != "" {
			var rng string
			rng, v, _ = strings.Cut(v, ",")
			mt, params, _ := strings.Cut(rng, ";")
			if qZero(param(params, "q")) {
				continue
			}
			switch mt = strings.TrimSpace(mt); {
			case mt == "*/*":
				json, sse = true, true
			case mt == "application/json": // as clients spell it: spare EqualFold
				json = true
			case mt == "text/event-stream":
				sse = true
			case strings.EqualFold(mt, "application/json"), strings.EqualFold(mt, "application/*"):
				json = true
			case strings.EqualFold(mt, "text/event-stream"), strings.EqualFold(mt, "text/*"):
				sse = true
			}
		}
	}
	return json, sse
}

// param returns the value of a media type's parameter ("a=1; q=0.5").
func param(params, name string) string {
	for params != "" {
		var p string
		p, params, _ = strings.Cut(params, ";")
		k, v, _ := strings.Cut(p, "=")
		if strings.EqualFold(strings.TrimSpace(k), name) {
			return strings.Trim(strings.TrimSpace(v), `"`)
		}
	}
	return ""
}

// qZero reports whether a quality value is zero ("0", "0.0", "0.000").
func qZero(q string) bool {
	return strings.HasPrefix(q, "0") && strings.TrimRight(strings.TrimPrefix(q, "0."), "0") == ""
}
