package streamable

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/internal/httpjson"
	"github.com/mcpwire/mcpwire/internal/session"
	"github.com/mcpwire/mcpwire/mcp"
)

// What a POST's body holds, as far as the transport cares.
type bodyInfo struct {
	initialize bool // a single initialize request
	answerDue  bool // a request, or something answered with an error
	invalid    bool // a single message that is not a valid one
	batch      bool
	quiet      bool     // pings and responses only: no activity (KeepAlive)
	ids        []string // the ids of its requests, as received
}

// post serves POST: a message or a batch of the client's.
func (h *Handler) post(w http.ResponseWriter, r *http.Request) {
	if !httpjson.IsJSON(fieldOf(r.Header, "Content-Type")) {
		httpjson.Error(w, http.StatusUnsupportedMediaType, codec.CodeInvalidRequest, "Unsupported Media Type: the body must be application/json")
		return
	}
	wantJSON, wantSSE := accepts(r.Header["Accept"]) // r.Header.Values("Accept")
	if !wantJSON && !wantSSE {
		httpjson.Error(w, http.StatusNotAcceptable, codec.CodeInvalidRequest, "Not Acceptable: accept application/json and text/event-stream")
		return
	}
	buf := h.bodies.Get()
	defer h.bodies.Put(buf)
	body, ok := h.readBody(w, r, buf)
	if !ok || !grantsScopes(&h.scan, h.srv, &h.opts, w, r, body) {
		return
	}
	if versions, ok := isStateless(r, body); ok {
		h.statelessPost(w, r, body, versions, wantJSON, wantSSE)
		return
	}
	asJSON := wantJSON && (h.opts.JSONResponse || !wantSSE) // never an event stream
	info, err := h.scan.classify(body, false)
	var s *httpSession
	info.quiet = info.quiet && err == nil
	if fieldOf(r.Header, headerSession) != "" {
		if s = h.session(w, r, info.quiet); s == nil {
			return
		}
		s.begin(info.quiet)
		defer s.end(info.quiet)
	}
	switch {
	case err != nil:
		parseError(w)
		return
	case info.initialize && s == nil:
		h.initialize(w, r, body, wantJSON)
		return
	case s == nil:
		httpjson.Error(w, http.StatusBadRequest, codec.CodeInvalidRequest, "Bad Request: the "+headerSession+" header is required (initialize first)")
		return
	case info.batch && !mcp.AllowsBatches(s.ss.ProtocolVersion()):
		httpjson.Error(w, http.StatusBadRequest, codec.CodeInvalidRequest, "Bad Request: batches are not accepted on this session (only under 2025-03-26)")
		return
	case !info.answerDue: // notifications and responses
		if s.c.ServeBodySink(r.Context(), body, conn.BodySink{}) == nil {
			w.WriteHeader(http.StatusAccepted)
		}
		return
	case info.invalid:
		h.serveJSON(w, r, s, body, http.StatusBadRequest)
	case asJSON:
		h.serveJSON(w, r, s, body, http.StatusOK)
	default:
		h.serveAnswer(w, r, s, body, info.quiet, !wantJSON)
	}
}

// fieldOf is hd.Get(key) for a key in canonical form (as the
// constants of header names here are), which Get would canonicalise
// again at every call.
func fieldOf(hd http.Header, key string) string {
	if vs := hd[key]; len(vs) > 0 {
		return vs[0]
	}
	return ""
}

// parseError answers a body that is not JSON: 400 with -32700.
func parseError(w http.ResponseWriter) {
	w.Header()["Content-Type"] = httpjson.ContentType
	w.WriteHeader(http.StatusBadRequest)
	w.Write(codec.AppendError(nil, nil, codec.ErrParse))
}

// readBody reads r's body into buf within MaxBodyBytes and ReadTimeout,
// answering the request itself when it cannot (413, 400; the connection
// then ends with the answer: httpjson.ReadBody).
func (h *Handler) readBody(w http.ResponseWriter, r *http.Request, buf *codec.Buffer) ([]byte, bool) {
	var err error
	buf.B, err = httpjson.ReadBody(w, r, buf.B, h.opts.MaxBodyBytes, 0) // bounded in ServeHTTP
	if err != nil {
		h.log.Debug("mcp: reading a POST's body", "remote", r.RemoteAddr, "err", err)
		return nil, false
	}
	return buf.B, true
}

// isInitialize reports whether m's method is initialize.
func isInitialize(m *codec.Message) bool { return isMethod(m, "initialize") }

// isMethod reports whether m's method is name, without allocating when
// the method has no escapes.
func isMethod(m *codec.Message, name string) bool {
	if !m.MethodEscaped {
		return string(m.Method) == name
	}
	return string(m.AppendMethod(nil)) == name
}

// serveJSON serves a body whose answer goes back as the response's JSON
// body (writeAnswer); what its handlers send meanwhile goes to the
// session's stream.
func (h *Handler) serveJSON(w http.ResponseWriter, r *http.Request, s *httpSession, body []byte, status int) {
	answered := false
	err := s.c.ServeBodySink(r.Context(), body, conn.BodySink{Answer: func(msg []byte) {
		writeAnswer(w, msg, status, r.Header["If-None-Match"])
		answered = true
	}})
	if err == nil && !answered { // a request the client cancelled meanwhile
		w.WriteHeader(http.StatusAccepted)
	}
}

// initialize serves a POST of initialize without a session: it starts one,
// and answers with its id (Mcp-Session-Id) once initialize succeeded. A
// refused initialize (malformed params, say) is answered without a
// session.
func (h *Handler) initialize(w http.ResponseWriter, r *http.Request, body []byte, asJSON bool) {
	s, err := h.newHTTPSession(r, randomID(16))
	if rf, ok := errors.AsType[*sessionRefused](err); ok {
		refuseSession(w, rf.e)
		return
	} else if errors.Is(err, session.ErrClosed) {
		refuseShutdown(w)
		return
	} else if err != nil {
		h.log.Error("mcp: starting a session", "err", err)
		httpjson.Error(w, http.StatusInternalServerError, codec.CodeInternalError, "Internal error: the session could not be started")
		return
	}
	var answer []byte
	_ = s.c.ServeBodySink(r.Context(), body, conn.BodySink{Answer: func(msg []byte) { answer = append(answer, msg...) }})
	if !s.ss.Initialized() {
		s.close(endClosed)
		if answer != nil {
			w.Header()["Content-Type"] = httpjson.ContentType
			w.Write(answer)
		}
		return
	}
	if _, ok := h.register(s); !ok {
		s.close(endClosed)
		refuseShutdown(w)
		return
	}
	s.touched.Store(time.Now().UnixNano())
	if err := h.store.Create(r.Context(), s.id, storedState(s.owner, body), h.ttl()); err != nil {
		s.close(endClosed)
		h.log.Error("mcp: session store", "err", err)
		refuseSession(w, errStoreUnavailable)
		return
	}
	h.watchDeletions(r.Context())
	w.Header().Set(headerSession, s.id)
	if asJSON {
		w.Header()["Content-Type"] = httpjson.ContentType
		w.Write(answer)
		return
	}
	// One event, not kept for resumption: the answer is all there is.
	h.writeEvents(w, r, appendEvent(nil, randomID(8), 1, answer))
}

// writeEvents answers r with an event stream of these events, and ends
// it.
func (h *Handler) writeEvents(w http.ResponseWriter, r *http.Request, events []byte) {
	h.stream(w, r, http.StatusOK, func(_ context.Context, o *sseResponse) {
		o.buf = events
		_ = o.flush()
	})
}
