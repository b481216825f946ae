package streamable

import (
	"context"
	"errors"
	"net/http"
	"sync"

	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/internal/httpjson"
)

// A POST holding requests is answered as plain JSON unless its handlers
// stream. The answer is one application/json body when the handlers send
// the client nothing before it; the POST becomes an event stream of its
// own — the headers, a priming event, event ids, each event kept in the
// EventStore for resumption — from the first message a handler sends
// while serving it (progress, a log message, a request to the client), or
// from CloseSSEStream, and carries the answer after them. A client that
// accepts only an event stream gets one from the start; one that accepts
// only JSON, or Options.JSONResponse, never gets one (serveJSON).
//
// postAnswer is that choice for one POST. Its sinks (answer, related,
// settle) run on the body's handlers' goroutines one at a time, under the
// body's lock in conn; closeStream runs on any goroutine. p.mu orders them
// and the POST's own goroutine, which waits in ServeBodySink until the
// body is settled or the answer becomes a stream (BodySink.Detach), then
// writes that stream out. Lock order: the body's lock, p.mu, then a
// stream's or the session's.
type postAnswer struct {
	h      *Handler
	s      *httpSession
	w      http.ResponseWriter
	ctx    context.Context // the POST's
	body   []byte          // valid while !over
	quiet  bool            // the body is no activity (KeepAlive)
	detach chan struct{}   // closed once the answer is a stream
	// ifNoneMatch are the POST's If-None-Match lines (writeAnswer).
	ifNoneMatch []string

	mu       sync.Mutex
	st       *sseStream // the POST's event stream, once it is one
	wr       *sseWriter // the POST's response, attached to st
	priming  uint64     // the number of st's priming event, 0: none
	answered bool       // the answer went out as JSON
	settled  bool       // the body is settled: nothing more comes
	over     bool       // the POST stopped waiting: body and w are no longer p's

	prev, next *postAnswer // the session's POSTs waiting for an answer (CloseStream)
}

// serveAnswer serves a body holding requests whose client accepts an
// event stream: as JSON unless its handlers stream, or, with sseOnly (the
// client accepts nothing else), as an event stream from the start.
func (h *Handler) serveAnswer(w http.ResponseWriter, r *http.Request, s *httpSession, body []byte, quiet, sseOnly bool) {
	p := &postAnswer{h: h, s: s, w: w, ctx: r.Context(), body: body, quiet: quiet, detach: make(chan struct{}),
		ifNoneMatch: r.Header["If-None-Match"]}
	if sseOnly {
		p.upgradeLocked() // nobody else knows p yet
	} else {
		s.await(p)
	}
	err := s.c.ServeBodySink(r.Context(), body, conn.BodySink{Answer: p.answer, Related: p.related, Detach: p.detach, Settled: p.settle})
	if !sseOnly {
		s.unawait(p)
	}
	p.mu.Lock()
	p.over = true
	st, answered := p.st, p.answered
	if st != nil && err != nil && !errors.Is(err, conn.ErrDetached) {
		p.settleLocked() // ctx ended the wait first: the sinks were dropped
	}
	p.mu.Unlock()
	switch {
	case st != nil:
		wr, priming := p.wr, p.priming
		h.stream(w, r, http.StatusOK, func(ctx context.Context, o *sseResponse) { o.pump(ctx, st, wr, nil, priming) })
	case err == nil && !answered: // a request the client cancelled meanwhile
		w.WriteHeader(http.StatusAccepted)
	}
}

// answer is the body's Answer sink: the JSON answer, or the stream's last
// event.
func (p *postAnswer) answer(msg []byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.st != nil {
		p.st.answer(msg)
		return
	}
	writeAnswer(p.w, msg, http.StatusOK, p.ifNoneMatch)
	p.answered = true
}

// related is the body's Related sink: the first message turns the answer
// into an event stream, which carries it and all that follow.
func (p *postAnswer) related(msg []byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.st == nil {
		p.upgradeLocked()
	}
	p.st.emit(msg)
}

// settle is the body's Settled sink.
func (p *postAnswer) settle() {
	p.mu.Lock()
	p.settleLocked()
	p.mu.Unlock()
}

func (p *postAnswer) settleLocked() {
	if p.settled {
		return
	}
	p.settled = true
	if p.st != nil {
		p.st.finish()
		p.s.end(p.quiet)
	}
}

// closeStream serves CloseSSEStream for one of the body's requests while
// it is answered as JSON: the answer becomes an event stream whose
// response ends at once, after its priming event; the client resumes it
// with a GET. It reports whether a response was ended.
func (p *postAnswer) closeStream() bool {
	p.mu.Lock()
	if p.answered || p.settled || (p.over && p.st == nil) {
		p.mu.Unlock()
		return false
	}
	if p.st == nil {
		p.upgradeLocked()
	}
	st := p.st
	p.mu.Unlock()
	return st.closeResponse()
}

// upgradeLocked makes the answer an event stream of the session's, with
// the POST's response attached, and ends the POST's wait for the body.
// p.body must be valid (!p.over).
func (p *postAnswer) upgradeLocked() {
	p.st = p.s.newPostStream(p.h.scan.requestIDs(p.body))
	p.wr, p.priming = p.st.attachNew()
	p.s.begin(p.quiet) // the stream is activity until the body is settled
	close(p.detach)
}

// writeAnswer writes msg, a JSON answer, with status; an answer due 200
// that is a single error response is sent with the status its code calls
// for (httpjson.StatusOf: 429 with Retry-After for -32011, and so on), as
// JSON-RPC over HTTP POST does; one that is a cacheable result gets its
// Cache-Control and ETag, or 304 when the request's If-None-Match lines
// (ifNoneMatch) match (cacheHeaders).
func writeAnswer(w http.ResponseWriter, msg []byte, status int, ifNoneMatch []string) {
	if status == http.StatusOK {
		st := httpjson.StatusOf(msg)
		if st == httpjson.StatusOK {
			writeResult(w, msg, ifNoneMatch)
			return
		}
		st.SetHeaders(w.Header())
		status = st.Code
	}
	w.Header()["Content-Type"] = httpjson.ContentType
	w.WriteHeader(status)
	w.Write(msg)
}

// writeResult is writeAnswer for an answer due 200 whose status needs no
// looking for (httpjson.StatusOf would find StatusOK): a result, or an
// error answered 200.
func writeResult(w http.ResponseWriter, msg []byte, ifNoneMatch []string) {
	hd := w.Header()
	hd["Content-Type"] = httpjson.ContentType
	if cacheHeaders(hd, msg, ifNoneMatch) {
		writeNotModified(w)
		return
	}
	w.WriteHeader(http.StatusOK)
	w.Write(msg)
}
