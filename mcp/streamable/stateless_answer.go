package streamable

import (
	"context"
	"errors"
	"net/http"
	"sync"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/internal/httpjson"
)

// statelessAnswer is the answer to one POST of a stateless protocol
// version: one JSON body unless the request's handler sends something
// first (progress, a log message), from when it is an event stream of
// the request's own — no priming event, no event ids, nothing stored:
// under those versions a stream is not resumed. The stream carries what
// the handler sends, then the answer, and ends. The client closing it
// (or going away while the JSON answer is awaited, on net/http) cancels
// the request: its handler's context is done (conn.BodyCancel).
//
// Its sinks run on the handler's goroutine under the body's lock in conn;
// the POST's goroutine waits in ServeBodySink until the body is settled
// or the answer becomes a stream (BodySink.Detach), then writes the
// stream out (pump). a.mu orders them.
type statelessAnswer struct {
	sink   conn.BodySink // bound to a's methods once: a is reused (Handler.answers)
	w      http.ResponseWriter
	inm    []string // the request's If-None-Match lines (a cacheable result may be 304)
	cancel conn.BodyCancel
	detach chan struct{} // closed once the answer is a stream

	mu       sync.Mutex
	stream   bool          // the answer is an event stream
	answered bool          // the JSON answer was written
	queue    [][]byte      // events the pump has not written yet
	done     bool          // settled: nothing more comes
	wake     chan struct{} // made with the stream: events were queued
}

// serveStateless serves body, one request of a stateless version, on the
// home connection c with r's context: as JSON unless its handler
// streams, always as JSON with asJSON, or as an event stream from the
// start with sseOnly. m is the message h.scan found in body, which c
// serves as it is (conn.Conn.ServeMessageSink: h.scan's limits are the
// server's, which c has). With here its handler runs on this goroutine
// (conn.BodySink.Here): what it sends reaches the client with the answer.
func (h *Handler) serveStateless(w http.ResponseWriter, r *http.Request, c *conn.Conn, body []byte, m *codec.Message, asJSON, sseOnly, here bool) {
	a := h.newAnswer(w)
	a.inm = r.Header["If-None-Match"]
	sink := a.sink
	sink.Detach = a.detach
	sink.RemoteAddr = r.RemoteAddr // per-peer middleware: PeerKey
	sink.Here = here
	if asJSON {
		sink.Related, sink.Detach = discard, nil // no stream to carry them
	}
	if sseOnly {
		a.upgradeLocked() // nobody else knows a yet
	}
	err := c.ServeMessageSink(r.Context(), body, m, sink)
	if err != nil && !errors.Is(err, conn.ErrDetached) { // the client went away
		a.cancel.Cancel()
		h.recycle(a) // the sinks were dropped: nothing calls them any more
		return
	}
	a.mu.Lock()
	stream, answered := a.stream, a.answered
	a.mu.Unlock()
	switch {
	case stream:
		h.stream(w, r, http.StatusOK, func(ctx context.Context, o *sseResponse) {
			if a.pump(ctx, o) {
				h.recycle(a)
			}
		})
		return
	case !answered: // cancelled meanwhile: no answer is due
		w.WriteHeader(http.StatusAccepted)
	}
	h.recycle(a) // settled: nothing calls the sinks any more
}

// newAnswer returns a statelessAnswer for w, reused if one is free.
func (h *Handler) newAnswer(w http.ResponseWriter) *statelessAnswer {
	a, _ := h.answers.Get().(*statelessAnswer)
	if a == nil {
		a = &statelessAnswer{}
		a.sink = conn.BodySink{Answer: a.answer, Related: a.related, Settled: a.settle, Cancel: &a.cancel}
	}
	if a.detach == nil {
		a.detach = make(chan struct{})
	}
	a.w = w
	return a
}

// recycle frees a once nothing calls its sinks any more: its body is
// settled, or ServeBodySink dropped them.
func (h *Handler) recycle(a *statelessAnswer) {
	if a.stream { // its detach is closed
		a.detach = nil
	}
	a.w, a.inm, a.queue, a.wake = nil, nil, nil, nil
	a.stream, a.answered, a.done = false, false, false
	h.answers.Put(a)
}

func discard([]byte) {}

// answer is the body's Answer sink.
func (a *statelessAnswer) answer(msg []byte) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.stream {
		a.queue = append(a.queue, append([]byte(nil), msg...))
		signal(a.wake)
		return
	}
	writeStatelessAnswer(a.w, msg, a.inm)
	a.answered = true
}

// related is the body's Related sink: the first message makes the answer
// an event stream. Past maxQueued events the client does not read, the
// rest (notifications) are dropped; the answer is not.
func (a *statelessAnswer) related(msg []byte) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.stream {
		a.upgradeLocked()
	}
	if len(a.queue) >= maxQueued {
		return
	}
	a.queue = append(a.queue, append([]byte(nil), msg...))
	signal(a.wake)
}

// upgradeLocked makes the answer an event stream, and ends the POST's
// wait for the body.
func (a *statelessAnswer) upgradeLocked() {
	a.stream = true
	a.wake = make(chan struct{}, 1)
	close(a.detach)
}

// settle is the body's Settled sink.
func (a *statelessAnswer) settle() {
	a.mu.Lock()
	a.done = true
	if a.wake != nil {
		signal(a.wake)
	}
	a.mu.Unlock()
}

// take returns the events queued and whether the body is settled.
func (a *statelessAnswer) take() ([][]byte, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	q := a.queue
	a.queue = nil
	return q, a.done
}

// pump writes the stream's events until the answer is written, and
// reports whether it was (the body is settled). The client going away, or
// a write failing, cancels the request.
func (a *statelessAnswer) pump(ctx context.Context, o *sseResponse) bool {
	a.mu.Lock()
	wake := a.wake // made before the stream was started
	a.mu.Unlock()
	for {
		q, done := a.take()
		for _, msg := range q {
			o.buf = appendSSEBody(o.buf, "message", msg)
		}
		if o.flush() != nil {
			a.cancel.Cancel()
			return false
		}
		if done {
			return true
		}
		select {
		case <-wake:
		case <-ctx.Done():
			a.cancel.Cancel()
			return false
		}
	}
}

// writeStatelessAnswer writes msg, the JSON answer to a request of a
// stateless version, with the status its error calls for: 404 for
// -32601, as the specification says; 400 for a request refused as
// malformed (-32700, -32600, -32602) or for what the version requires of
// it (-32020 to -32022); otherwise as any answer (writeAnswer). A
// result goes out as writeAnswer sends one: a cacheable one with its
// Cache-Control and ETag, and 304 when ifNoneMatch matches.
func writeStatelessAnswer(w http.ResponseWriter, msg []byte, ifNoneMatch []string) {
	code, ok := httpjson.ErrorCode(msg)
	if !ok { // a result: StatusOf would find nothing again
		writeResult(w, msg, ifNoneMatch)
		return
	}
	switch code {
	case codec.CodeMethodNotFound:
		writeAnswer(w, msg, http.StatusNotFound, nil)
	case codec.CodeParseError, codec.CodeInvalidRequest, codec.CodeInvalidParams,
		codec.CodeHeaderMismatch, codec.CodeMissingRequiredClientCapability, codec.CodeUnsupportedProtocolVersion:
		writeAnswer(w, msg, http.StatusBadRequest, nil)
	default:
		writeAnswer(w, msg, http.StatusOK, nil)
	}
}
