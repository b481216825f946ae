package conn

import (
	"io"
	"sync"

	"github.com/mcpwire/mcpwire/codec"
)

// writer coalesces outgoing messages. Producers append framed messages to
// pending; the first producer to find no flush in progress becomes the
// flusher and writes pending, swapping it with spare, until nothing is
// left. Messages that arrive during a write go out together in the next one.
// The reader does not come here for each response: it holds them in a
// buffer of its own and hands them over with sendHeld before it would block.
//
// Invariants (under mu): flushing is true exactly while one goroutine owns
// the write loop; pending holds only whole frames; err, once set, is final.
type writer struct {
	mu         sync.Mutex
	room       sync.Cond // signalled after every write, for producers over maxPending
	w          io.Writer
	framing    codec.Framing
	pending    []byte
	spare      []byte
	flushing   bool
	err        error
	maxPending int
}

func newWriter(w io.Writer, f codec.Framing, maxPending int) *writer {
	wr := &writer{w: w, framing: f, maxPending: maxPending}
	wr.room.L = &wr.mu
	return wr
}

// lockRoom locks mu once pending has room (or the writer has failed: then
// it returns the error unlocked).
func (w *writer) lockRoom() error {
	w.mu.Lock()
	for w.flushing && len(w.pending) >= w.maxPending && w.err == nil {
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
func (w *writer) send(msg []byte) error {
	if err := w.lockRoom(); err != nil {
		return err
	}
	w.pending = codec.AppendFrame(w.pending, w.framing, msg)
	if w.flushing {
		w.mu.Unlock()
		return nil
	}
	return w.flushLocked()
}

// sendHeld queues the framed messages a reader held back and flushes. It
// returns an empty buffer for the reader to hold the next ones in: when
// nothing else is pending the two buffers are swapped, not copied.
func (w *writer) sendHeld(held []byte) ([]byte, error) {
	if err := w.lockRoom(); err != nil {
		return held[:0], err
	}
	if len(w.pending) == 0 {
		held, w.pending = w.pending[:0], held
	} else {
		w.pending = append(w.pending, held...)
		held = held[:0]
	}
	if w.flushing {
		w.mu.Unlock()
		return held, nil
	}
	return held, w.flushLocked()
}

// flush writes whatever is pending unless a flush is already under way.
func (w *writer) flush() error {
	w.mu.Lock()
	if w.flushing || len(w.pending) == 0 || w.err != nil {
		err := w.err
		w.mu.Unlock()
		return err
	}
	return w.flushLocked()
}

// flushLocked is called with mu held and returns with it released.
func (w *writer) flushLocked() error {
	w.flushing = true
	for len(w.pending) > 0 && w.err == nil {
		out := w.pending
		w.pending = w.spare[:0]
		w.mu.Unlock()
		_, err := w.w.Write(out)
		w.mu.Lock()
		if cap(out) <= 4*heldFlushBytes || cap(out) <= w.maxPending/4 {
			w.spare = out[:0]
		} else {
			w.spare = nil // let a burst's buffer go
		}
		if err != nil {
			w.err = err
		}
		w.room.Broadcast()
	}
	w.flushing = false
	err := w.err
	w.mu.Unlock()
	return err
}

// fail makes every later send fail with err and wakes blocked producers.
func (w *writer) fail(err error) {
	w.mu.Lock()
	if w.err == nil {
		w.err = err
	}
	w.room.Broadcast()
	w.mu.Unlock()
}
