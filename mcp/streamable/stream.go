package streamable

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// An SSE stream of a session outlives the HTTP responses that carry it.
// Every event it emits is numbered (1, 2, 3… per stream; its id on the
// wire is "<stream>.<n>") and appended to the session's EventStore; while
// an HTTP response is attached (a POST's own, or a GET's), the event is
// also queued for that response, whose handler goroutine writes it out.
// A response that breaks, that a handler closes (CloseSSEStream) or that a
// newer one takes over detaches; the stream goes on, and a GET with
// Last-Event-ID attaches again: it replays from the store what followed
// that event, then the live events. A POST's stream is done once its
// answer is emitted; a session's standalone stream (the GET without
// Last-Event-ID) lasts as long as the session.
//
// Invariants, under mu: events are numbered, stored and queued in one
// step, so an attaching response's replay (read under mu) and its queue
// neither miss nor repeat an event; at most one writer is attached; done
// is set by the step that emits the answer.
type sseStream struct {
	sess       *httpSession
	id         string
	standalone bool
	shared     SharedEventStore // a standalone stream's, on a shared store: see SharedEventStore

	mu      sync.Mutex
	seq     uint64     // number of the last event
	written uint64     // number of the last event a response wrote out
	queue   []queued   // events for the attached writer
	writer  *sseWriter // the attached response, or nil
	done    bool       // the answer has been emitted: nothing follows
	reqIDs  []string   // the requests of a POST's stream (CloseSSEStream)
}

type queued struct {
	seq  uint64
	data []byte
}

// maxQueued bounds the events queued for a writer that does not keep up;
// past it the writer is detached (the events stay in the store for the
// client to resume from).
const maxQueued = 4096

// sseWriter is one HTTP response attached to a stream.
type sseWriter struct {
	wake   chan struct{} // one token: events were queued
	detach chan struct{} // closed: let go of the stream
	fetch  chan struct{} // one token: this instance published (pumpShared)
	retry  bool          // detached by CloseSSEStream: announce the retry delay
	rest   []queued      // likewise: what was queued, written out before the end
}

var errStreamBusy = errors.New("mcp: the session's standalone stream is already open")

// The wire id of event n of a stream is "<stream>.<n>" (appendEvent).

// parseEventID splits a wire event id into its stream and number.
func parseEventID(id string) (stream string, n uint64, ok bool) {
	i := strings.LastIndexByte(id, '.')
	if i <= 0 {
		return "", 0, false
	}
	n, err := strconv.ParseUint(id[i+1:], 10, 64)
	return id[:i], n, err == nil
}

// emit numbers msg, stores it, and queues it for the attached writer; it
// is the stream's Related sink. msg is valid only during the call. On a
// shared store, the store numbers it (publish).
func (st *sseStream) emit(msg []byte) {
	if st.shared != nil {
		st.publish(msg)
		return
	}
	st.put(msg, false)
}

// answer emits the answer of a POST's body: the stream is done.
func (st *sseStream) answer(msg []byte) { st.put(msg, true) }

func (st *sseStream) put(msg []byte, last bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.putLocked(msg, last)
}

// offer emits msg if a response is attached to carry it now, and reports
// whether it did.
func (st *sseStream) offer(msg []byte) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.writer == nil || st.done {
		return false
	}
	if st.shared != nil { // live only, with no id: not numbered here
		st.queueLocked(0, msg)
		return true
	}
	st.putLocked(msg, false)
	return true
}

// carrying reports whether a response is attached to the stream, which is
// not done: a message emitted now reaches the client at once.
func (st *sseStream) carrying() bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.writer != nil && !st.done
}

func (st *sseStream) putLocked(msg []byte, last bool) {
	s := st.sess
	if st.done {
		return
	}
	st.seq++
	if err := s.h.events.Append(s.ctx, s.id, st.id, st.seq, msg); err != nil {
		s.h.log.Warn("mcp: event store append failed", "session", s.id, "err", err)
	}
	st.queueLocked(st.seq, msg)
	if last {
		st.finishLocked()
	}
}

// finish marks a POST's stream done once its body is settled, answered or
// not (a request cancelled by the client is not answered).
func (st *sseStream) finish() {
	st.mu.Lock()
	if !st.done {
		st.finishLocked()
	}
	st.mu.Unlock()
}

// queueLocked queues event seq for the attached writer, if any, letting
// go of a writer that does not keep up.
func (st *sseStream) queueLocked(seq uint64, msg []byte) {
	if w := st.writer; w != nil {
		if len(st.queue) >= maxQueued {
			st.detachLocked(false)
		} else {
			st.queue = append(st.queue, queued{seq, append([]byte(nil), msg...)})
			signal(w.wake)
		}
	}
}

func (st *sseStream) finishLocked() {
	st.done = true
	if w := st.writer; w != nil {
		signal(w.wake)
	}
	st.sess.streamDone(st)
}

func signal(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// attach makes a new writer the stream's, taking over from any other
// unless exclusive, and returns it with the events after seq the store
// holds (for exclusive, a fresh GET: after the last one written out) and,
// when the response must open with a priming event, its number (0: none).
func (st *sseStream) attach(ctx context.Context, after uint64, exclusive bool) (*sseWriter, []StoredEvent, uint64, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.writer != nil {
		if exclusive {
			return nil, nil, 0, errStreamBusy
		}
		st.detachLocked(false)
	}
	if exclusive {
		after = st.written
	}
	replay, err := st.sess.h.events.After(ctx, st.sess.id, st.id, after)
	if err != nil {
		return nil, nil, 0, err
	}
	var priming uint64
	if len(replay) == 0 && st.sess.priming() && (exclusive || after == 0) && !st.done {
		st.seq++ // the priming event takes a number of its own: its id is unique
		priming = st.seq
	}
	w := &sseWriter{wake: make(chan struct{}, 1), detach: make(chan struct{})}
	st.writer, st.queue = w, nil
	return w, replay, priming, nil
}

// attachNew attaches the first writer of a POST's new stream: there is
// nothing to replay, and the priming event, if the session's version has
// them, is event 1 (0: none).
func (st *sseStream) attachNew() (*sseWriter, uint64) {
	st.mu.Lock()
	defer st.mu.Unlock()
	var priming uint64
	if st.sess.priming() && !st.done {
		st.seq++
		priming = st.seq
	}
	w := &sseWriter{wake: make(chan struct{}, 1), detach: make(chan struct{})}
	st.writer = w
	return w, priming
}

// detachLocked lets the attached writer go. With retry (CloseSSEStream)
// the writer first writes out what is queued: the handler sent it before
// closing.
func (st *sseStream) detachLocked(retry bool) {
	w := st.writer
	w.retry = retry
	if retry {
		w.rest = st.queue
	}
	close(w.detach)
	st.writer, st.queue = nil, nil
}

// closeResponse detaches the writer, announcing the retry delay: the
// response ends, the stream goes on (CloseSSEStream).
func (st *sseStream) closeResponse() bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.writer == nil || st.done {
		return false
	}
	st.detachLocked(true)
	return true
}

// take returns the events queued for w and whether the stream is done;
// attached is false once w has been let go.
func (st *sseStream) take(w *sseWriter) (q []queued, done, attached bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.writer != w {
		return nil, false, false
	}
	q, st.queue = st.queue, nil
	return q, st.done, true
}

// release detaches w if it is still attached.
func (st *sseStream) release(w *sseWriter) {
	st.mu.Lock()
	if st.writer == w {
		st.writer, st.queue = nil, nil
	}
	st.mu.Unlock()
}

// wrote records that event n reached the client's connection.
func (st *sseStream) wrote(n uint64) {
	st.mu.Lock()
	st.written = max(st.written, n)
	st.mu.Unlock()
}

// sseResponse writes one stream's events to one HTTP response.
type sseResponse struct {
	opts *Options // WriteTimeout, RetryInterval
	out  sseOut
	buf  []byte
}

// sseOut is where an event stream's bytes go: a net/http response
// (netSSE), or fasthttp's stream writer (fastSSE).
type sseOut interface {
	Write(p []byte) (int, error)
	// Flush sends what was written to the client.
	Flush() error
	// SetWriteDeadline bounds the next writes and flushes; the zero time
	// lifts the bound.
	SetWriteDeadline(t time.Time) error
}

// netSSE is a net/http response as an sseOut.
type netSSE struct {
	http.ResponseWriter
	rc *http.ResponseController
}

func (n netSSE) Flush() error                       { return n.rc.Flush() }
func (n netSSE) SetWriteDeadline(t time.Time) error { return n.rc.SetWriteDeadline(t) }

// startSSE writes the headers of an event stream on net/http.
func startSSE(w http.ResponseWriter, status int, opts *Options) *sseResponse {
	setSSEHeaders(w.Header())
	w.WriteHeader(status)
	return &sseResponse{opts: opts, out: netSSE{w, http.NewResponseController(w)}}
}

func setSSEHeaders(hd http.Header) {
	hd["Content-Type"] = contentTypeStream
	hd.Set("Cache-Control", "no-cache, no-transform")
	hd.Set("X-Accel-Buffering", "no") // proxies must not hold events back
}

// stream answers r with an event stream of status, whose events run
// writes: on net/http at once, on the handler's goroutine, with r's
// context; served by ServeFastHTTP, once the handler has returned, on
// fasthttp's stream writer, with a context that also ends when the client
// goes away (fastStream). run must not use w or r.
func (h *Handler) stream(w http.ResponseWriter, r *http.Request, status int, run func(ctx context.Context, o *sseResponse)) {
	if fw := fastWriterOf(w); fw != nil {
		setSSEHeaders(w.Header())
		w.WriteHeader(status)
		fw.stream(r.Context(), &h.opts, run)
		return
	}
	run(r.Context(), startSSE(w, status, &h.opts))
}

// flush writes what is buffered and flushes it to the client, within
// WriteTimeout.
func (o *sseResponse) flush() error {
	if len(o.buf) == 0 {
		return nil
	}
	if d := o.opts.WriteTimeout; d > 0 {
		_ = o.out.SetWriteDeadline(time.Now().Add(d)) // not every writer has deadlines
	}
	_, err := o.out.Write(o.buf)
	o.buf = o.buf[:0]
	if err == nil {
		err = o.out.Flush()
	}
	return err
}

// priming appends the event that opens a stream: an id to resume from,
// the retry delay, and no data.
func (o *sseResponse) priming(stream string, n uint64) {
	o.buf = appendEventIDField(o.buf, stream, n)
	if d := o.opts.RetryInterval; d > 0 {
		o.buf = append(o.buf, "retry: "...)
		o.buf = strconv.AppendInt(o.buf, d.Milliseconds(), 10)
		o.buf = append(o.buf, '\n')
	}
	o.buf = append(o.buf, "data: \n\n"...)
}

// pump writes the stream's events to the response until the stream is
// done (its answer written), the writer is let go, the client goes away,
// or ctx ends. replay and priming are what attach returned.
func (o *sseResponse) pump(ctx context.Context, st *sseStream, w *sseWriter, replay []StoredEvent, priming uint64) {
	defer st.release(w)
	if priming != 0 {
		o.priming(st.id, priming)
	}
	last := priming
	for _, e := range replay {
		o.buf = appendEvent(o.buf, st.id, e.Seq, e.Data)
		last = e.Seq
	}
	if o.flush() != nil {
		return
	}
	st.wrote(last)
	for {
		q, done, attached := st.take(w)
		if !attached {
			if w.retry {
				for _, e := range w.rest {
					o.buf = appendEvent(o.buf, st.id, e.seq, e.data)
					last = e.seq
				}
				if o.opts.RetryInterval > 0 {
					o.buf = appendRetry(o.buf, o.opts.RetryInterval)
				}
				if o.flush() == nil {
					st.wrote(last)
				}
			}
			return
		}
		for _, e := range q {
			o.buf = appendEvent(o.buf, st.id, e.seq, e.data)
			last = e.seq
		}
		if o.flush() != nil {
			return
		}
		st.wrote(last)
		if done {
			return
		}
		if len(q) > 0 {
			continue
		}
		select {
		case <-w.wake:
		case <-w.detach:
		case <-ctx.Done():
			return
		}
	}
}
