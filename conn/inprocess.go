package conn

import (
	"context"
	"errors"
	"io"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/mcpwire/mcpwire/codec"
)

// InProcess returns the two ends of a session that never leaves the
// process: a server and its client in one program, or a test. Each end
// goes to NewStream (or to anything that takes a Stream, such as an MCP
// server's or client's Connect); the messages between the two sessions
// are still JSON-RPC, encoded and scanned, with every option, limit and
// guarantee of a session, but there is no stream between them: no
// framing, no buffer between, no reading goroutine's hand-off.
//
// A call is served on the caller's goroutine: the request is dispatched
// to the peer session at once and its handler runs there, as a pool
// worker would run it (MaxInFlight, Admission and HandlerTimeout apply),
// its answer scanned straight into the call. Cancelling the call's
// context cancels the handler's. Everything else — what a handler sends
// back while it runs (progress, log messages, requests such as sampling),
// notifications, batches, answers — reaches the other session as it would
// over a stream, in order: its inline handlers run at once, the others on
// its pool, so that no handler runs under a lock of the sender's.
//
// Closing either end ends both sessions, as when a stream ends: each
// drains what it was serving and closes. A session whose peer has not
// started yet waits for it before its first message.
func InProcess() (Stream, Stream) {
	l := &inProcessLink{closed: make(chan struct{})}
	a := &inProcessEnd{link: l, attached: make(chan struct{})}
	b := &inProcessEnd{link: l, attached: make(chan struct{}), peer: a}
	a.peer = b
	// The peer's answers and the messages its handlers send while serving
	// a body of ours come back to us (see post).
	a.back = BodySink{Answer: a.receive, Related: a.relate}
	b.back = BodySink{Answer: b.receive, Related: b.relate}
	return a, b
}

// inProcessLink is what both ends share: closing either closes it.
type inProcessLink struct {
	once   sync.Once
	closed chan struct{}
}

// inProcessEnd is one end of InProcess, the Stream of one session (its
// conn, attached by NewStream).
type inProcessEnd struct {
	link     *inProcessLink
	peer     *inProcessEnd
	c        atomic.Pointer[Conn]
	attached chan struct{} // closed once c is set
	back     BodySink      // for the bodies this end posts to the peer
}

// attach makes c the session of e: NewStream calls it.
func (e *inProcessEnd) attach(c *Conn) {
	if e.c.CompareAndSwap(nil, c) {
		close(e.attached)
	}
}

// post dispatches msg, one message or a batch sent by e's session, to the
// peer session, as a body whose answer and related messages come back to
// e (e.back). The peer's pool runs its handlers (inline ones run here):
// post does not wait for them.
func (e *inProcessEnd) post(ctx context.Context, msg []byte) error {
	p, err := e.peerConn(ctx)
	if err != nil {
		return err
	}
	p.serveBody(msg, &bodyReply{c: p, fn: e.back.Answer, related: e.back.Related})
	return nil
}

// peerConn returns the peer's session, waiting for it to start unless
// ctx or the link ends first.
func (e *inProcessEnd) peerConn(ctx context.Context) (*Conn, error) {
	select {
	case <-e.link.closed:
		return nil, ErrClosed
	default:
	}
	if c := e.peer.c.Load(); c != nil {
		return c, nil
	}
	select {
	case <-e.peer.attached:
		return e.peer.c.Load(), nil
	case <-e.link.closed:
		return nil, ErrClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// receive serves on e's session what its peer answered to a body e
// posted: a response (or a batch's array of them), which calls for no
// answer of its own.
func (e *inProcessEnd) receive(msg []byte) { e.c.Load().serveBody(msg, nil) }

// relate serves on e's session a message the peer's handler sends while
// it serves a body e posted: its answer goes back to the peer as the
// answer to a body of the peer's own.
func (e *inProcessEnd) relate(msg []byte) { _ = e.peer.post(context.Background(), msg) }

// callRaw is c.AppendCall on e, c's end: the request is served on this
// goroutine and its answer taken straight from the peer (directCall), not
// through the session's pending calls. The handler's context is cancelled
// if ctx ends first.
func (e *inProcessEnd) callRaw(ctx context.Context, c *Conn, dst []byte, method string, params any) (codec.Raw, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	p, err := e.peerConn(ctx)
	if err != nil {
		return nil, err
	}
	b := respBufs.Get()
	defer respBufs.Put(b)
	b.B = strconv.AppendUint(b.B, c.calls.next.Add(1), 10)
	n := len(b.B) // the id, then the request
	if b.B, err = c.appendRequest(b.B, b.B[:n], method, params); err != nil {
		return nil, err
	}
	id := b.B[:n:n]
	var stop func() bool
	if ctx.Done() != nil {
		cid := append([]byte(nil), id...) // Cancel may run after b is reused
		stop = context.AfterFunc(ctx, func() { p.Cancel(cid) })
	}
	d := &directCall{c: c, dst: dst}
	d.r = bodyReply{c: p, related: e.back.Related, into: d}
	p.serveBody(b.B[n:], &d.r)
	cancelled := stop != nil && !stop()
	d.r.mu.Lock()
	if !cancelled && d.r.into != nil {
		// The handler has returned, but the request is not settled yet:
		// a timeout, a Cancel or a shutdown claimed it first, and is
		// answering it on another goroutine. Wait for that answer.
		done := make(chan struct{})
		d.r.done = done
		d.r.mu.Unlock()
		select {
		case <-done:
		case <-p.ctx.Done():
		case <-e.link.closed:
		}
		d.r.mu.Lock()
	}
	defer d.r.mu.Unlock()
	switch {
	case cancelled: // ctx ended first: what the handler said then is dropped
		return nil, &CanceledCallError{ID: append(codec.Raw(nil), id...), Err: ctx.Err()}
	case d.answered:
		return d.result, d.err
	case p.ctx.Err() != nil:
		return nil, ErrClosed
	default:
		return nil, ErrNoAnswer
	}
}

// ErrNoAnswer is what a call on an InProcess session returns when the
// peer settled it without an answer: it cancelled the request itself
// (Conn.Cancel under CancelSilent) while it ran.
var ErrNoAnswer = errors.New("conn: the peer ended the call without answering it")

// directCall is one call of callRaw: its body's answer is scanned into it.
// Its fields are the body's, under r.mu.
type directCall struct {
	r        bodyReply
	ctx      reqCtx // the handler's context
	c        *Conn  // the calling session: its limits scan the answer
	dst      []byte // what the result is appended to
	answered bool
	result   codec.Raw
	err      error
}

// take records the answer msg (bodyReply.put), unless the session that
// answers has closed meanwhile: as on a stream, the answers of handlers
// still running then are dropped, and the call fails with ErrClosed.
func (d *directCall) take(msg []byte) {
	if d.r.c.ctx.Err() != nil {
		return
	}
	s := getScanner(d.c.opts.Limits)
	defer putScanner(d.c.opts.Limits, s)
	msgs, isBatch, err := s.Scan(msg)
	d.answered = true
	switch {
	case err != nil || isBatch:
		d.err = malformedResponse("not one JSON-RPC message")
	case msgs[0].Kind == codec.KindResult || msgs[0].Kind == codec.KindError:
		d.result, d.err = outcome(&msgs[0], d.dst)
	case msgs[0].Kind == codec.KindBadResponse || lostResponse(&msgs[0]):
		d.err = malformedResponse(malformedReason(&msgs[0]))
	default:
		d.err = malformedResponse("not a response")
	}
}

// Next blocks until the link closes: every message arrives through post.
func (e *inProcessEnd) Next() ([]byte, error) {
	<-e.link.closed
	return nil, io.EOF
}

func (e *inProcessEnd) Buffered() bool { return false }

// AppendFrame and FrameInPlace lay messages out as a message stream does,
// for Write to cut apart.
func (e *inProcessEnd) AppendFrame(dst, msg []byte) []byte { return appendLenFrame(dst, msg) }

func (e *inProcessEnd) FrameInPlace(buf []byte, start int) []byte {
	return lenFrameInPlace(buf, start)
}

// Write posts what the session sent through its writer — messages outside
// any call, answers it could not give a body — to the peer's pool.
func (e *inProcessEnd) Write(frames []byte) error {
	return eachMessage(frames, func(msg []byte) error {
		return e.post(context.Background(), msg)
	})
}

func (e *inProcessEnd) Close() error {
	e.link.once.Do(func() { close(e.link.closed) })
	return nil
}
