package conn

import (
	"errors"
	"io"
	"os"
	"time"

	"github.com/mcpwire/mcpwire/codec"
)

// Stream carries whole messages both ways beneath a session: the
// message-level contract every transport meets. A framed byte stream (New)
// is one kind; a transport that carries one message per unit (a WebSocket,
// an in-memory pipe) is another (NewMessageStream).
//
// The session reads from one goroutine; it lays out outgoing messages into
// a buffer of its own with AppendFrame or FrameInPlace, many at a time, and
// hands them to Write from one goroutine at a time, so that a pipelining
// peer gets many responses per system call.
//
// A Stream that also has SetReadDeadline(time.Time) error lets Shutdown
// interrupt a blocked Next and IdleTimeout apply; one with
// SetWriteDeadline(time.Time) error lets WriteTimeout apply. They report
// an error when the stream underneath has no deadlines.
type Stream interface {
	// Next returns the next incoming message, as codec.Framer does: a view
	// valid until the next call; a *codec.FrameError is recoverable (answer
	// it, call Next again), a *CallError fails one outgoing call (call Next
	// again); io.EOF is a clean end.
	Next() ([]byte, error)
	// Buffered reports whether Next will return without blocking.
	Buffered() bool
	// AppendFrame appends one outgoing message to dst laid out as Write
	// expects it.
	AppendFrame(dst, msg []byte) []byte
	// FrameInPlace lays out the message buf holds from start on, in place,
	// as AppendFrame would have.
	FrameInPlace(buf []byte, start int) []byte
	// Write sends frames: one or more messages laid out by AppendFrame, in
	// order. It is never called concurrently, and frames is not retained.
	Write(frames []byte) error
	// Close closes the stream; a blocked Next or Write returns.
	Close() error
}

type readDeadliner interface{ SetReadDeadline(time.Time) error }
type writeDeadliner interface{ SetWriteDeadline(time.Time) error }

// errNoDeadline is what a stream's deadline methods report when the stream
// underneath has no deadlines.
var errNoDeadline = errors.New("conn: the stream has no deadlines")

// NewByteStream makes a Stream of a byte stream (a socket, a pipe, a
// child process's stdin and stdout) framed by f in both directions (nil:
// codec.Newline), with frames bounded by l (nil: the defaults); New does
// the same for a session of its own. The deadline methods of rwc, if it
// has them, are the stream's. It is for code that hands a Stream to
// NewStream: a client's dialer, say.
func NewByteStream(rwc io.ReadWriteCloser, f codec.Framing, l *codec.Limits) Stream {
	if f == nil {
		f = codec.Newline
	}
	lim := l.WithDefaults()
	return newByteStream(rwc, f, &lim, nil, 0)
}

// byteStream is a framed byte stream: a socket, a pipe, stdio.
type byteStream struct {
	codec.Framer  // Next, Buffered
	codec.Framing // AppendFrame, FrameInPlace
	rwc           io.ReadWriteCloser
}

// newByteStream frames rwc with f in both directions. With an idle timeout
// and a stream that has read deadlines, reads give up after idle unless c
// has requests in flight (c may be nil when idle is 0).
func newByteStream(rwc io.ReadWriteCloser, f codec.Framing, l *codec.Limits, c *Conn, idle time.Duration) *byteStream {
	var r io.Reader = rwc
	if d, ok := rwc.(readDeadliner); ok && idle > 0 {
		ir := &idleReader{r: rwc, d: d, idle: idle, c: c}
		r = ir
		if ir.w = codec.WaitingReader(rwc); ir.w != nil {
			r = &idleWaiter{ir} // the framer waits for data with no buffer
		}
	}
	return &byteStream{Framer: f.NewFramer(r, l), Framing: f, rwc: rwc}
}

func (s *byteStream) Write(frames []byte) error {
	_, err := s.rwc.Write(frames)
	return err
}

func (s *byteStream) Close() error { return s.rwc.Close() }

func (s *byteStream) SetReadDeadline(t time.Time) error {
	if d, ok := s.rwc.(readDeadliner); ok {
		return d.SetReadDeadline(t)
	}
	return errNoDeadline
}

func (s *byteStream) SetWriteDeadline(t time.Time) error {
	if d, ok := s.rwc.(writeDeadliner); ok {
		return d.SetWriteDeadline(t)
	}
	return errNoDeadline
}

// idleReader gives up a read that waited idle with no request of the peer
// in flight; while requests are in flight it waits on. It sits under the
// framer, whose read errors are final.
type idleReader struct {
	r    io.Reader
	w    codec.ReadWaiter // r's, if it has one (see idleWaiter)
	d    readDeadliner
	idle time.Duration
	c    *Conn
}

func (r *idleReader) Read(p []byte) (int, error) { return r.read(p, false) }

// read reads into p or, if wait, waits with r.w for something to read.
func (r *idleReader) read(p []byte, wait bool) (n int, err error) {
	for {
		if r.d.SetReadDeadline(time.Now().Add(r.idle)) != nil {
			return r.readOnce(p, wait)
		}
		// Shutdown sets stopping, then a past deadline: checked after our
		// own deadline is set, one of the two sees the other.
		if r.c.stopping.Load() {
			return 0, os.ErrDeadlineExceeded
		}
		n, err = r.readOnce(p, wait)
		if n == 0 && errors.Is(err, os.ErrDeadlineExceeded) && !r.c.stopping.Load() && r.c.limit.InUse() > 0 {
			continue // not idle: the peer waits for answers
		}
		if errors.Is(err, os.ErrDeadlineExceeded) && !r.c.stopping.Load() {
			err = errIdle
		}
		return n, err
	}
}

func (r *idleReader) readOnce(p []byte, wait bool) (int, error) {
	if wait {
		return 0, r.w.WaitRead()
	}
	return r.r.Read(p)
}

// idleWaiter is an idleReader over a codec.ReadWaiter, and one itself:
// its waits for data end as its reads do.
type idleWaiter struct{ *idleReader }

// WaitRead waits for something to read, within the idle timeout unless
// requests are in flight.
func (r idleWaiter) WaitRead() error {
	_, err := r.read(nil, true)
	return err
}

// errIdle ends a connection that stayed idle past IdleTimeout.
var errIdle = errors.New("conn: idle timeout")
