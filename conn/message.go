package conn

import (
	"encoding/binary"
	"io"
	"os"
	"sync"
	"time"

	"github.com/mcpwire/mcpwire/codec"
)

// MessageConn carries one whole message per unit: a WebSocket, an
// in-memory pipe. NewMessageStream makes a Stream of it.
type MessageConn interface {
	// ReadMessage returns the next message: valid until the next call.
	// io.EOF is a clean end.
	ReadMessage() ([]byte, error)
	// WriteMessage sends one message; msg is not retained.
	WriteMessage(msg []byte) error
	// Close closes the connection; a blocked ReadMessage or WriteMessage
	// returns.
	Close() error
}

// NewMessageStream makes a Stream of mc. A message longer than
// l.MaxFrameBytes (nil: the default) is answered -32600 and skipped. The
// deadline methods of mc, if it has them, are the stream's.
func NewMessageStream(mc MessageConn, l *codec.Limits) Stream {
	lim := l.WithDefaults()
	return &messageStream{mc: mc, max: lim.MaxFrameBytes}
}

// messageStream lays out outgoing messages with a 4-byte big-endian length
// before each, and Write cuts them apart again: the session coalesces
// them the same way as on a byte stream, the transport sends them one by
// one.
type messageStream struct {
	mc  MessageConn
	max int
}

const lenPrefix = 4

func (s *messageStream) Next() ([]byte, error) {
	msg, err := s.mc.ReadMessage()
	if err == nil && len(msg) > s.max {
		return nil, &codec.FrameError{Err: codec.ErrFrameTooLarge}
	}
	return msg, err
}

func (s *messageStream) Buffered() bool {
	b, ok := s.mc.(interface{ Buffered() bool })
	return ok && b.Buffered()
}

func (s *messageStream) AppendFrame(dst, msg []byte) []byte {
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(msg)))
	return append(dst, msg...)
}

func (s *messageStream) FrameInPlace(buf []byte, start int) []byte {
	n := len(buf) - start
	buf = append(buf, 0, 0, 0, 0)
	copy(buf[start+lenPrefix:], buf[start:start+n])
	binary.BigEndian.PutUint32(buf[start:], uint32(n))
	return buf
}

func (s *messageStream) Write(frames []byte) error {
	for len(frames) >= lenPrefix {
		n := int(binary.BigEndian.Uint32(frames))
		if err := s.mc.WriteMessage(frames[lenPrefix : lenPrefix+n]); err != nil {
			return err
		}
		frames = frames[lenPrefix+n:]
	}
	return nil
}

func (s *messageStream) Close() error { return s.mc.Close() }

func (s *messageStream) SetReadDeadline(t time.Time) error {
	if d, ok := s.mc.(readDeadliner); ok {
		return d.SetReadDeadline(t)
	}
	return errNoDeadline
}

func (s *messageStream) SetWriteDeadline(t time.Time) error {
	if d, ok := s.mc.(writeDeadliner); ok {
		return d.SetWriteDeadline(t)
	}
	return errNoDeadline
}

// Pipe returns the two ends of an in-memory message connection: what one
// writes, the other reads, one message at a time. A write waits while
// pipeQueue messages wait unread; closing either end ends both. Each end
// has SetReadDeadline, so Shutdown can interrupt a blocked read, and
// Buffered, so that a session reading it answers a burst of messages with
// one write. For tests, and for running a client and a server in one
// process.
func Pipe() (MessageConn, MessageConn) {
	ab, ba := make(chan []byte, pipeQueue), make(chan []byte, pipeQueue)
	shared := &pipeShared{done: make(chan struct{})}
	return &pipeEnd{in: ba, out: ab, shared: shared, wake: make(chan struct{})},
		&pipeEnd{in: ab, out: ba, shared: shared, wake: make(chan struct{})}
}

type pipeShared struct {
	once sync.Once
	done chan struct{}
}

type pipeEnd struct {
	in     <-chan []byte
	out    chan<- []byte
	shared *pipeShared

	mu       sync.Mutex
	deadline time.Time
	wake     chan struct{} // closed and replaced when the deadline changes
}

func (p *pipeEnd) ReadMessage() ([]byte, error) {
	for {
		p.mu.Lock()
		d, wake := p.deadline, p.wake
		p.mu.Unlock()
		var timeout <-chan time.Time
		var t *time.Timer
		if !d.IsZero() {
			wait := time.Until(d)
			if wait <= 0 {
				return nil, os.ErrDeadlineExceeded
			}
			t = time.NewTimer(wait)
			timeout = t.C
		}
		select {
		case msg := <-p.in:
			stopTimer(t)
			return msg, nil
		case <-p.shared.done:
			stopTimer(t)
			select {
			case msg := <-p.in: // written before the end: still read
				return msg, nil
			default:
				return nil, io.EOF
			}
		case <-timeout:
			return nil, os.ErrDeadlineExceeded
		case <-wake: // the deadline moved: look again
			stopTimer(t)
		}
	}
}

func stopTimer(t *time.Timer) {
	if t != nil {
		t.Stop()
	}
}

// pipeQueue is how many messages a Pipe holds unread in each direction.
const pipeQueue = 64

// KeepFrames is a codec.Keeper's: the messages read are the writer's
// copies, kept for good already.
func (p *pipeEnd) KeepFrames() {}

// Buffered reports whether a message waits to be read.
func (p *pipeEnd) Buffered() bool { return len(p.in) > 0 }

func (p *pipeEnd) WriteMessage(msg []byte) error {
	select {
	case <-p.shared.done:
		return io.ErrClosedPipe
	default:
	}
	select {
	case p.out <- append([]byte(nil), msg...):
		return nil
	case <-p.shared.done:
		return io.ErrClosedPipe
	}
}

func (p *pipeEnd) Close() error {
	p.shared.once.Do(func() { close(p.shared.done) })
	return nil
}

// SetReadDeadline bounds the reads of this end.
func (p *pipeEnd) SetReadDeadline(t time.Time) error {
	p.mu.Lock()
	p.deadline = t
	close(p.wake)
	p.wake = make(chan struct{})
	p.mu.Unlock()
	return nil
}
