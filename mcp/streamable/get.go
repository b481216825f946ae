package streamable

import (
	"context"
	"errors"
	"net/http"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/internal/httpjson"
)

// get serves GET: the session's standalone stream, or, with Last-Event-ID,
// the resumption of the stream that event belongs to.
func (h *Handler) get(w http.ResponseWriter, r *http.Request) {
	if _, sse := accepts(r.Header.Values("Accept")); !sse {
		httpjson.Error(w, http.StatusNotAcceptable, codec.CodeInvalidRequest, "Not Acceptable: accept text/event-stream")
		return
	}
	last := r.Header.Get(headerLastEventID)
	if last == "" && h.opts.DisableStandaloneSSE {
		w.Header().Set("Allow", "POST, DELETE")
		httpjson.Error(w, http.StatusMethodNotAllowed, codec.CodeInvalidRequest, "Method not allowed: this server opens no standalone stream")
		return
	}
	s := h.session(w, r, false)
	if s == nil {
		return
	}
	s.begin(false) // an open stream is activity: ended once it is over
	if !h.getStream(w, r, s, last) {
		s.end(false)
	}
}

// getStream serves an admitted GET of session s, and reports whether it
// answers with a live stream, which ends s's activity (httpSession.end)
// once over.
func (h *Handler) getStream(w http.ResponseWriter, r *http.Request, s *httpSession, last string) bool {
	if last == "" && s.standalone.shared != nil {
		return h.getShared(w, r, s, 0, true)
	}
	if last == "" {
		wr, replay, priming, err := s.standalone.attach(r.Context(), 0, true)
		switch {
		case errors.Is(err, errStreamBusy):
			httpjson.Error(w, http.StatusConflict, codec.CodeInvalidRequest, "Conflict: the session's standalone stream is already open")
		case err != nil:
			h.storeFailed(w, err)
		default:
			h.pump(w, r, s, s.standalone, wr, replay, priming)
			return true
		}
		return false
	}
	id, n, ok := parseEventID(last)
	if !ok {
		httpjson.Error(w, http.StatusBadRequest, codec.CodeInvalidRequest, "Bad Request: malformed Last-Event-ID")
		return false
	}
	st := s.stream(id)
	if st != nil && st.shared != nil {
		return h.getShared(w, r, s, n, false)
	}
	if st == nil {
		// Done (its answer emitted) or unknown: what the store holds after
		// that event, then the end.
		events, err := h.events.After(r.Context(), s.id, id, n)
		if err != nil {
			h.storeFailed(w, err)
			return false
		}
		var buf []byte
		for _, e := range events {
			buf = appendEvent(buf, id, e.Seq, e.Data)
		}
		h.writeEvents(w, r, buf)
		return false
	}
	wr, replay, priming, err := st.attach(r.Context(), n, false)
	if err != nil {
		h.storeFailed(w, err)
		return false
	}
	h.pump(w, r, s, st, wr, replay, priming)
	return true
}

// pump answers a GET with the stream st, attached as wr, and ends s's
// activity once it is over.
func (h *Handler) pump(w http.ResponseWriter, r *http.Request, s *httpSession, st *sseStream, wr *sseWriter, replay []StoredEvent, priming uint64) {
	h.stream(w, r, http.StatusOK, func(ctx context.Context, o *sseResponse) {
		o.pump(ctx, st, wr, replay, priming)
		s.end(false)
	})
}

// getShared answers a GET with s's shared standalone stream, from the
// event after after (exclusive: a fresh GET, from the stream's last), and
// reports whether it answered with a live stream.
func (h *Handler) getShared(w http.ResponseWriter, r *http.Request, s *httpSession, after uint64, exclusive bool) bool {
	a, err := s.standalone.attachShared(r.Context(), after, exclusive)
	switch {
	case errors.Is(err, errStreamBusy):
		httpjson.Error(w, http.StatusConflict, codec.CodeInvalidRequest, "Conflict: the session's standalone stream is already open")
	case errors.Is(err, ErrSessionNotFound): // it ended meanwhile
		h.noSession(w, err)
	case err != nil:
		h.storeFailed(w, err)
	default:
		h.stream(w, r, http.StatusOK, func(ctx context.Context, o *sseResponse) {
			o.pumpShared(ctx, s.standalone, a)
			s.end(false)
		})
		return true
	}
	return false
}

func (h *Handler) storeFailed(w http.ResponseWriter, err error) {
	h.log.Error("mcp: event store", "err", err)
	httpjson.Error(w, http.StatusInternalServerError, codec.CodeInternalError, "Internal error: event store unavailable")
}
