package conn

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpwire/mcpwire/codec"
)

// writer coalesces outgoing messages. Producers append framed messages to
// pending; the first producer to find no flush in progress becomes the
// flusher and writes pending, swapping it with spare, until nothing is
// left. Messages that arrive during a write go out together in the next one.
// The reader does not come here for each response: it holds them in a
// buffer of its own and hands them over with sendHeld before it would block
// (writing that buffer itself when nothing else is pending). Workers hold
// theirs back too, while more of the connection's tasks wait to start
// (sendLater): the last of those to start flushes them. While the reader
// waits for input, buffers over idleKeep go back to spareBufs (idle).
//
// A producer waits while pending holds maxPending bytes or more and a
// write is under way (a peer that stops reading stops them, and so the
// reader), unless stopWaiting has been called. No lock of the connection
// is held while waiting here or writing.
//
// Invariants (under mu): flushing is true exactly while one goroutine owns
// the write loop; pending holds only whole frames; err, once set, is final.
type writer struct {
	mu         sync.Mutex
	room       sync.Cond // signalled after every write, for producers over maxPending
	s          Stream    // nil: nothing can be sent
	pending    []byte
	spare      []byte
	flushing   bool
	later      bool          // pending holds answers sendLater held back
	box        *codec.Buffer // for giveSpare and takeSpare
	laterTimer *time.Timer   // runs lateFlush past laterLimit; made on first use
	lateFlush  func()        // calls flushLater and deals with its error
	noWait     bool
	err        error
	maxPending int

	timeout  time.Duration // WriteTimeout; 0: none
	deadline time.Time     // write deadline last set
}

func newWriter(s Stream, maxPending int, timeout time.Duration) *writer {
	if s == nil {
		return noStream
	}
	w := &writer{s: s, maxPending: maxPending}
	w.room.L = &w.mu
	if _, ok := s.(writeDeadliner); ok && timeout > 0 {
		w.timeout = timeout
	}
	return w
}

// noStream is the writer of every session without a stream (a body
// session's): it has failed with ErrNoStream from the start and never
// changes. Its methods return before they would lock mu (w.s == nil), so
// that the sessions sharing it never contend for it.
var noStream = &writer{err: ErrNoStream}

// lockRoom locks mu once pending has room (or the writer has failed: then
// it returns the error unlocked).
func (w *writer) lockRoom() error {
	if w.s == nil {
		return w.err
	}
	w.mu.Lock()
	for w.flushing && len(w.pending) >= w.maxPending && w.err == nil && !w.noWait {
		w.room.Wait()
	}
	if err := w.err; err != nil {
		w.mu.Unlock()
		return err
	}
	return nil
}

// send frames msg, queues it and flushes unless a flush is under way. It
// returns the writer's sticky error, if any; msg is not retained.
func (w *writer) send(msg []byte) error { return w.sendCall(msg, false) }

// sendCall is send for an outgoing call. When others are pending too (a
// caller pipelining, or many callers), the caller that would flush first
// lets the goroutines that are ready run, so that the calls of callers
// woken together (by the responses of one read) go out in one write.
func (w *writer) sendCall(msg []byte, others bool) error {
	if err := w.lockRoom(); err != nil {
		return err
	}
	w.appendPending(msg)
	if w.flushing {
		w.mu.Unlock()
		return nil
	}
	if others {
		w.flushing = true // the flush is ours: others only append meanwhile
		w.mu.Unlock()
		runtime.Gosched()
		w.mu.Lock()
		w.flushing = false
	}
	return w.flushLocked()
}

// laterLimit bounds how long sendLater holds an answer back for tasks that
// are slow to start (every worker busy with long handlers).
const laterLimit = 200 * time.Microsecond

// idle gives large buffers back (giveSpare) once nothing is pending: the
// reader is about to wait for input.
func (w *writer) idle() {
	w.mu.Lock()
	if !w.flushing && len(w.pending) == 0 {
		w.pending = giveSpare(w.pending, &w.box)
		w.spare = giveSpare(w.spare, &w.box)
	}
	w.mu.Unlock()
}

// appendPending frames msg onto pending, starting from a spare buffer if
// the writer gave its own back. Under mu.
func (w *writer) appendPending(msg []byte) {
	if w.pending == nil {
		w.pending = takeSpare(&w.box)
	}
	w.pending = w.s.AppendFrame(w.pending, msg)
}

// sendLater is send for an answer produced while queued (the connection's
// tasks handed to the pool and not yet started) is above zero: it is held
// in pending for the last of those tasks to flush as it starts
// (flushLater), so that a pipelining peer gets one write per burst of
// pooled answers instead of one each. It is flushed at once when nothing is
// queued or pending has grown to heldFlushBytes, and by a timer after
// laterLimit. queued is read under mu; whoever takes it to zero must then
// call flushLater, so that no answer is left behind.
func (w *writer) sendLater(msg []byte, queued *atomic.Int32) error {
	if err := w.lockRoom(); err != nil {
		return err
	}
	w.appendPending(msg)
	switch {
	case w.flushing:
	case queued.Load() > 0 && len(w.pending) < heldFlushBytes:
		if !w.later {
			w.later = true
			w.armLater()
		}
	default:
		return w.flushLocked()
	}
	w.mu.Unlock()
	return nil
}

// armLater starts the timer that bounds how long held answers wait. Under
// mu.
func (w *writer) armLater() {
	if w.laterTimer == nil {
		w.laterTimer = time.AfterFunc(laterLimit, w.lateFlush)
		return
	}
	w.laterTimer.Reset(laterLimit)
}

// flushLater writes the answers sendLater held back, unless a flush under
// way will or there are none.
func (w *writer) flushLater() error {
	if w.s == nil {
		return nil // nothing was held back: every send failed
	}
	w.mu.Lock()
	if w.flushing || !w.later {
		w.mu.Unlock()
		return nil
	}
	return w.flushLocked()
}

// sendHeld queues the framed messages a reader held back and flushes. It
// returns an empty buffer for the reader to hold the next ones in: held
// itself, written as it is when nothing else is pending and no flush is
// under way (the reader then writes; no buffer changes hands, so a
// connection whose answers all come from its reader keeps one output
// buffer), else copied into pending.
func (w *writer) sendHeld(held []byte) ([]byte, error) {
	if err := w.lockRoom(); err != nil {
		return held[:0], err
	}
	if !w.flushing && len(w.pending) == 0 {
		return held[:0], w.writeLocked(held)
	}
	w.pending = append(w.pending, held...)
	if w.flushing {
		w.mu.Unlock()
		return held[:0], nil
	}
	return held[:0], w.flushLocked()
}

// drain writes everything pending, waiting for a flush under way to end,
// and returns once nothing is left or the writer has failed.
func (w *writer) drain() error {
	if w.s == nil {
		return w.err
	}
	w.mu.Lock()
	for w.err == nil && (w.flushing || len(w.pending) > 0) {
		if w.flushing {
			w.room.Wait()
			continue
		}
		_ = w.flushLocked()
		w.mu.Lock()
	}
	err := w.err
	w.mu.Unlock()
	return err
}

// flushLocked is called with mu held and returns with it released.
func (w *writer) flushLocked() error { return w.writeLocked(nil) }

// writeLocked writes first (the reader's held output; nil: none), then
// everything pending until nothing is left. It is called with mu held,
// no flush under way, and returns with mu released. first stays the
// caller's: it never becomes the spare.
func (w *writer) writeLocked(first []byte) error {
	w.flushing = true
	w.later = false // what was held back goes out with this flush
	for w.err == nil {
		out, own := first, first != nil
		if own {
			first = nil
		} else if len(w.pending) > 0 {
			out = w.pending
			w.pending = w.spare[:0]
		} else {
			break
		}
		w.mu.Unlock()
		w.armDeadline()
		err := w.s.Write(out)
		w.mu.Lock()
		switch {
		case own:
		case cap(out) <= 4*heldFlushBytes || cap(out) <= w.maxPending/4:
			w.spare = out[:0]
		default:
			w.spare = nil // let a burst's buffer go
		}
		if err != nil {
			w.err = err
		}
		w.room.Broadcast()
	}
	w.flushing = false
	w.room.Broadcast() // for drain
	err := w.err
	w.mu.Unlock()
	return err
}

// armDeadline refreshes the write deadline once half of WriteTimeout has
// gone by since it was last set: one clock read per write, and a deadline
// call only now and then. Flusher only.
func (w *writer) armDeadline() {
	if w.timeout <= 0 {
		return
	}
	now := time.Now()
	if w.deadline.Sub(now) > w.timeout/2 {
		return
	}
	w.deadline = now.Add(w.timeout)
	if w.s.(writeDeadliner).SetWriteDeadline(w.deadline) != nil {
		w.timeout = 0 // the stream underneath has no deadlines after all
	}
}

// idleKeep is the largest output buffer a waiting connection keeps.
const idleKeep = 1 << 10

// spareBufs hold the output buffers that waiting connections gave back
// (giveSpare), for busy ones to take (takeSpare): an idle connection holds
// no large output buffer, and a busy one rarely grows one. The pool's
// codec.Buffers are only the boxes the slices travel in.
var spareBufs codec.BufferPool

// giveSpare returns b to keep: b itself when it is small, else nil, b then
// going to spareBufs in the box *box (a new one if there is none: boxes go
// round with the buffers, so that giving and taking allocate nothing).
func giveSpare(b []byte, box **codec.Buffer) []byte {
	if cap(b) <= idleKeep {
		return b
	}
	p := *box
	if p == nil {
		p = new(codec.Buffer)
	}
	*box = nil
	p.B = b[:cap(b)] // the pool calibrates on the length it is given: say the size
	spareBufs.Put(p)
	return nil
}

// takeSpare returns an empty buffer from spareBufs (nil if it had none),
// keeping its box in *box for the next giveSpare.
func takeSpare(box **codec.Buffer) []byte {
	p := spareBufs.Get()
	b := p.B[:0]
	p.B = nil
	if *box == nil {
		*box = p
	}
	return b
}

// stopWaiting makes producers queue without waiting for room from now on:
// past Shutdown's deadline nobody may block on a peer that does not read.
func (w *writer) stopWaiting() {
	if w.s == nil {
		return // nobody waits: every send fails at once
	}
	w.mu.Lock()
	w.noWait = true
	w.room.Broadcast()
	w.mu.Unlock()
}

// fail makes every later send fail with err and wakes blocked producers.
func (w *writer) fail(err error) {
	if w.s == nil {
		return // failed for good already
	}
	w.mu.Lock()
	if w.err == nil {
		w.err = err
	}
	w.room.Broadcast()
	w.mu.Unlock()
}
