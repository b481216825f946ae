package conn

import (
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// Pipe returns the two ends of an in-memory message connection: what one
// writes, the other reads, one message at a time. A write waits while
// pipeQueue messages or more wait unread; closing either end ends both, and the
// messages written before still reach the reader. Each end has
// SetReadDeadline, so Shutdown can interrupt a blocked read, and Buffered,
// so that a session reading it answers a burst of messages with one
// write. For tests, and for running a client and a server in one process.
//
// The messages of a direction wait in a queue under a mutex; a reader or
// writer parks on a channel only when the queue is empty or full. What is
// written is copied into chunks of pipeChunk bytes, which are never
// reused (the reader keeps what it reads), so a stream of small messages
// costs an allocation per chunk, not per message; a session's burst of
// answers (written by NewMessageStream's Write at once) is copied and
// queued in one step.
func Pipe() (MessageConn, MessageConn) {
	shared := &pipeShared{done: make(chan struct{})}
	ab, ba := newPipeDir(), newPipeDir()
	return &pipeEnd{in: ba, out: ab, shared: shared}, &pipeEnd{in: ab, out: ba, shared: shared}
}

// pipeQueue is how many messages a Pipe holds unread in each direction;
// pipeChunk the size of the chunks that hold them.
const (
	pipeQueue = 64
	pipeChunk = 4 << 10
)

type pipeShared struct {
	once sync.Once
	done chan struct{}
}

// pipeDir is one direction of a Pipe.
type pipeDir struct {
	mu      sync.Mutex
	msgs    [][]byte // unread, from msgs[head]
	head    int
	chunk   []byte // where the next message is copied, in its spare capacity
	readers int    // parked on ready
	writers int    // parked on room
	ready   chan struct{}
	room    chan struct{}
	unread  atomic.Int32 // len(msgs)-head, for Buffered

	deadline time.Time     // the reader's
	wake     chan struct{} // closed and replaced when the deadline changes
}

func newPipeDir() *pipeDir {
	return &pipeDir{ready: make(chan struct{}, 1), room: make(chan struct{}, 1), wake: make(chan struct{})}
}

type pipeEnd struct {
	in, out *pipeDir
	shared  *pipeShared
}

// wakeOne wakes one goroutine parked on ch, if any is counted in *parked.
// Called with the mutex held.
func wakeOne(ch chan struct{}, parked *int) {
	if *parked > 0 {
		*parked--
		select {
		case ch <- struct{}{}:
		default: // a wake-up is pending already
		}
	}
}

func (p *pipeEnd) ReadMessage() ([]byte, error) {
	q := p.in
	for {
		q.mu.Lock()
		if q.head < len(q.msgs) {
			msg := q.msgs[q.head]
			q.msgs[q.head] = nil
			if q.head++; q.head == len(q.msgs) {
				q.msgs, q.head = q.msgs[:0], 0
			}
			q.unread.Add(-1)
			wakeOne(q.room, &q.writers)
			if q.head < len(q.msgs) {
				wakeOne(q.ready, &q.readers) // another reader may take the next
			}
			q.mu.Unlock()
			return msg, nil
		}
		d, wake := q.deadline, q.wake
		select {
		case <-p.shared.done:
			q.mu.Unlock()
			return nil, io.EOF // every message written before the end was read
		default:
		}
		var timeout <-chan time.Time
		var t *time.Timer
		if !d.IsZero() {
			wait := time.Until(d)
			if wait <= 0 {
				q.mu.Unlock()
				return nil, os.ErrDeadlineExceeded
			}
			t = time.NewTimer(wait)
			timeout = t.C
		}
		q.readers++
		q.mu.Unlock()
		select {
		case <-q.ready:
		case <-p.shared.done:
		case <-wake: // the deadline moved: look again
		case <-timeout:
		}
		if t != nil {
			t.Stop()
		}
	}
}

// Buffered reports whether a message waits to be read.
func (p *pipeEnd) Buffered() bool { return p.in.unread.Load() > 0 }

func (p *pipeEnd) WriteMessage(msg []byte) error { return p.write(msg, nil) }

// writeFrames is WriteMessage for each message of frames, laid out as
// NewMessageStream lays them out, copied and queued at once.
func (p *pipeEnd) writeFrames(frames []byte) error { return p.write(nil, frames) }

// write queues msg, or the messages of frames (length-prefixed), waiting
// while the queue is full.
func (p *pipeEnd) write(msg, frames []byte) error {
	q := p.out
	q.mu.Lock()
	defer q.mu.Unlock()
	for {
		select {
		case <-p.shared.done:
			return io.ErrClosedPipe
		default:
		}
		if len(q.msgs)-q.head < pipeQueue {
			break
		}
		q.writers++
		q.mu.Unlock()
		select {
		case <-q.room:
		case <-p.shared.done:
		}
		q.mu.Lock()
	}
	queued := len(q.msgs)
	if frames == nil {
		q.msgs = append(q.msgs, q.copyIn(msg))
	} else {
		// All copied at once; each message capped (eachMessage).
		_ = eachMessage(q.copyIn(frames), func(m []byte) error {
			q.msgs = append(q.msgs, m)
			return nil
		})
	}
	q.unread.Add(int32(len(q.msgs) - queued))
	wakeOne(q.ready, &q.readers)
	return nil
}

// copyIn returns a copy of b in the current chunk (or a new one), capped
// so that appending to it cannot reach the next message.
func (q *pipeDir) copyIn(b []byte) []byte {
	if cap(q.chunk)-len(q.chunk) < len(b) {
		q.chunk = make([]byte, 0, max(pipeChunk, len(b)))
	}
	at := len(q.chunk)
	q.chunk = append(q.chunk, b...)
	return q.chunk[at:len(q.chunk):len(q.chunk)]
}

func (p *pipeEnd) Close() error {
	p.shared.once.Do(func() { close(p.shared.done) })
	return nil
}

// SetReadDeadline bounds the reads of this end.
func (p *pipeEnd) SetReadDeadline(t time.Time) error {
	q := p.in
	q.mu.Lock()
	q.deadline = t
	close(q.wake)
	q.wake = make(chan struct{})
	q.mu.Unlock()
	return nil
}
