package streamable

import (
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
	s.begin(false)
	defer s.end(false)
	if last == "" {
		wr, replay, priming, err := s.standalone.attach(r.Context(), 0, true)
		switch {
		case errors.Is(err, errStreamBusy):
			httpjson.Error(w, http.StatusConflict, codec.CodeInvalidRequest, "Conflict: the session's standalone stream is already open")
		case err != nil:
			h.storeFailed(w, err)
		default:
			h.startSSE(w, http.StatusOK).pump(r.Context(), s.standalone, wr, replay, priming)
		}
		return
	}
	id, n, ok := parseEventID(last)
	if !ok {
		httpjson.Error(w, http.StatusBadRequest, codec.CodeInvalidRequest, "Bad Request: malformed Last-Event-ID")
		return
	}
	st := s.stream(id)
	if st == nil {
		// Done (its answer emitted) or unknown: what the store holds after
		// that event, then the end.
		events, err := h.events.After(r.Context(), s.id, id, n)
		if err != nil {
			h.storeFailed(w, err)
			return
		}
		out := h.startSSE(w, http.StatusOK)
		for _, e := range events {
			out.buf = appendEvent(out.buf, id, e.Seq, e.Data)
		}
		_ = out.flush()
		return
	}
	wr, replay, priming, err := st.attach(r.Context(), n, false)
	if err != nil {
		h.storeFailed(w, err)
		return
	}
	h.startSSE(w, http.StatusOK).pump(r.Context(), st, wr, replay, priming)
}

func (h *Handler) storeFailed(w http.ResponseWriter, err error) {
	h.log.Error("mcp: event store", "err", err)
	httpjson.Error(w, http.StatusInternalServerError, codec.CodeInternalError, "Internal error: event store unavailable")
}
