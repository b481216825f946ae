package conn

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"

	"github.com/mcpwire/mcpwire/codec"
)

// ServeBody serves one complete body — a message or a batch — that a
// transport received whole (an HTTP POST, say), on the calling goroutine:
// no read buffer, no reader goroutine. It gives reply the answer once it is
// ready: a response, or a batch's array; reply is not called when no
// answer is due (notifications and responses only). reply may run on
// another goroutine, but only before ServeBody returns; msg is valid only
// during the call.
//
// ServeBody returns once the answer is settled, or with ctx.Err() when ctx
// is done first: the handlers go on, and their answer is dropped. body may
// be reused once it returns. It is safe to call from many goroutines at
// once; the session's options, limits and batch policy apply, and
// handlers see the session in their context.
//
// ServeBody is ServeBodySink with an Answer only: what the body's handlers
// send to the peer goes to the session's stream.
func (c *Conn) ServeBody(ctx context.Context, body []byte, reply func(msg []byte)) error {
	return c.ServeBodySink(ctx, body, BodySink{Answer: reply})
}

// BodySink receives what serving one body produces (ServeBodySink).
type BodySink struct {
	// Answer receives the response, or the batch's array, once; it is not
	// called when no answer is due (notifications and responses only).
	Answer func(msg []byte)
	// Related, if set, receives every message the body's pooled handlers
	// send to the peer — Notify, Call, CallRaw — with their request's
	// context or one derived from it, in the order they are sent, instead
	// of the session's stream. Nil: they go to the session's stream.
	Related func(msg []byte)
	// Detach, if set, lets the transport stop waiting while the body's
	// handlers go on: once it is closed, ServeBodySink returns ErrDetached
	// (or nil, if the body was settled meanwhile) and the sinks stay in
	// place, called as they would have been, after ServeBodySink has
	// returned. Streamable HTTP closes it from Related to turn a POST's
	// answer into an event stream when a handler sends something first.
	Detach <-chan struct{}
	// Settled, if set, is called once the body is settled, answered or not
	// (a request the peer cancelled is not), after Answer and under the
	// same lock; it is not called once ServeBodySink has returned ctx's
	// error.
	Settled func()
	// Cancel, if set, is bound to the body: its Cancel method then
	// cancels the body's requests still running (see BodyCancel). A
	// transport whose client going away means the end of its requests
	// (Streamable HTTP under MCP 2026-07-28) calls it then.
	Cancel *BodyCancel
	// RemoteAddr, if set, is where the body came from (an HTTP request's
	// RemoteAddr), for a connection that serves the bodies of many peers
	// and so has no Peer.Addr of its own (Streamable HTTP's stateless
	// requests): per-peer middleware reads it with BodyRemoteAddr.
	RemoteAddr string
	// Here, if set, runs a request or notification that would go to the
	// pool on the goroutine calling ServeBodySink instead, as an
	// InProcess call's handler runs: for a transport whose goroutine
	// would only wait for the answer, and whose handlers need nothing
	// they send to reach the peer before they return (Streamable HTTP's
	// stateless requests that asked for no progress and no log messages,
	// whose handlers cannot wait on the client). What they send still
	// goes to Related, before the answer. MaxInFlight and Admission bound
	// them as they bound the pool's work; the pool's own size does not. A
	// batch's elements go to the pool, and so does every message of a
	// connection with a HandlerTimeout, whose answer must not wait for a
	// handler that overran it. Such a handler's context ends when ctx
	// does (before it starts, too), and ServeBodySink returns once the
	// handler has.
	Here bool
}

// BodyCancel cancels the requests of one body served by ServeBodySink
// (BodySink.Cancel). The zero value is ready to be bound; bind it to one
// body only. Safe for concurrent use.
type BodyCancel struct{ r atomic.Pointer[bodyReply] }

// Cancel cancels every request of the body that is running or waiting
// for a worker, as Conn.Cancel cancels one: its handler's context is
// done and, per Options.Cancel, it is answered -32005 (CancelAnswer) or
// not at all (CancelSilent). It returns how many it cancelled: none
// before the body is bound, once it is settled, or when its handlers run
// inline (they cannot be cancelled).
func (b *BodyCancel) Cancel() int {
	r := b.r.Load()
	if r == nil {
		return 0
	}
	return r.c.cancelBody(r)
}

// ErrDetached is what ServeBodySink returns when BodySink.Detach ended
// its wait before the body was settled.
var ErrDetached = errors.New("conn: body detached before it was settled")

// ServeBodySink is ServeBody for a transport that carries, beside the
// answer, the messages a body's handlers send to the peer while serving
// it: Streamable HTTP puts progress, log messages and the server's own
// requests (sampling, elicitation) on the POST's event stream, before the
// response. The answer to such a request arrives later in a body of its
// own and completes the call as any response does.
//
// Answer and Related are called one at a time for a body (under a lock of
// the body's: a slow sink holds back the body's handlers, not the
// session), Related messages in the order sent and all of them before the
// Answer: a message delivered to Related is never one that followed the
// answer. Like reply, both run only before
// ServeBodySink returns (unless Detach ended the wait: then until the body
// is settled), and msg is valid only during the call: a message
// sent once the body is settled — by a notification's handler (settled
// once handed off), by a goroutine a handler left behind, or after ctx
// ended the wait — goes to the session's stream, and fails with
// ErrNoStream on a session that has none. So a transport need not guard
// its sink against late calls; one that keeps a stream open past the
// answer delivers those messages from the session's stream.
//
// Related routing follows a pooled handler's context (Options.Pool, or
// the default workers without one): inline handlers
// (router.MethodOptions.Inline) run with the connection's context, and
// what they send goes to the session's stream. A context derived from
// another session's request is not followed either.
func (c *Conn) ServeBodySink(ctx context.Context, body []byte, sink BodySink) error {
	return c.serveSink(ctx, body, nil, sink)
}

// ServeMessageSink is ServeBodySink for a body that the transport has
// scanned already, to learn what to do with it: m is the one message
// (not a batch) a codec.Scanner found in body, a JSON-RPC 2.0 request or
// notification, its spans views into body as the Scanner made them
// (codec.Message.Rebase relies on them). The Scanner's limits must be the
// connection's (MaxFrameBytes aside: ServeMessageSink refuses a body
// over the connection's as ServeBodySink does); the body is not scanned
// again.
func (c *Conn) ServeMessageSink(ctx context.Context, body []byte, m *codec.Message, sink BodySink) error {
	if (m.Kind != codec.KindRequest && m.Kind != codec.KindNotification) || m.JSONRPC1 {
		return c.serveSink(ctx, body, nil, sink) // not what it serves as scanned: scan it
	}
	return c.serveSink(ctx, body, m, sink)
}

// serveSink serves body, as scanned into m if not nil (ServeMessageSink).
func (c *Conn) serveSink(ctx context.Context, body []byte, m *codec.Message, sink BodySink) error {
	r := &bodyReply{c: c, ctx: ctx, fn: sink.Answer, related: sink.Related, settled: sink.Settled, remote: sink.RemoteAddr}
	if sink.Cancel != nil {
		sink.Cancel.r.Store(r)
	}
	r.here = sink.Here && c.opts.HandlerTimeout <= 0
	if m != nil {
		c.serveScanned(body, m, r)
	} else {
		c.serveBody(body, r)
	}
	r.mu.Lock()
	if r.putDone { // settled on this goroutine (inline handlers): no wait
		r.mu.Unlock()
		return nil
	}
	done := make(chan struct{})
	r.done = done
	r.mu.Unlock()
	select {
	case <-done:
		return nil
	case <-sink.Detach: // a nil Detach never ends the wait
		return ErrDetached
	case <-ctx.Done():
		r.mu.Lock()
		defer r.mu.Unlock()
		select {
		case <-sink.Detach: // closed under r.mu, by a sink: the sinks stay
			return ErrDetached
		default:
		}
		r.fn, r.related, r.settled = nil, nil, nil
		return ctx.Err()
	}
}

// serveBody dispatches body, to be settled through r (nil: what it
// answers goes to the session's stream).
func (c *Conn) serveBody(body []byte, r *bodyReply) {
	if len(body) > c.opts.Limits.MaxFrameBytes {
		c.answer(replyTo{body: r}, errorResponse(nil, c.invalid(errBodyTooLarge)), nil)
		return
	}
	s := getScanner(c.opts.Limits)
	s.SetJSONRPC1(c.opts.JSONRPC1) // pooled scanners are shared by sessions
	c.serveFrame(body, s, r, nil)
	putScanner(c.opts.Limits, s)
}

// serveScanned dispatches m, body's one message (ServeMessageSink), to
// be settled through r.
func (c *Conn) serveScanned(body []byte, m *codec.Message, r *bodyReply) {
	if len(body) > c.opts.Limits.MaxFrameBytes {
		c.answer(replyTo{body: r}, errorResponse(nil, c.invalid(errBodyTooLarge)), nil)
		return
	}
	var ref *frameRef
	c.serveMessage(body, m, replyTo{body: r}, nil, &ref)
	ref.release()
}

var errBodyTooLarge = (&codec.FrameError{Err: codec.ErrFrameTooLarge}).RPCError()

// bodyReply is one ServeBodySink call: it receives the body's answer and,
// until then, the messages its handlers send to the peer.
type bodyReply struct {
	c       *Conn
	ctx     context.Context // ServeBodySink's (BodyContext); nil for WithSink's
	mu      sync.Mutex
	fn      func([]byte)  // nil once settled or given up
	related func([]byte)  // likewise; nil from the start without a sink for them
	settled func()        // likewise; called once settled (BodySink.Settled)
	done    chan struct{} // closed once settled; nil: nobody waits on it (yet)
	putDone bool          // put has run: the body is settled
	remote  string        // BodySink.RemoteAddr (BodyRemoteAddr)

	// into, if set, is an InProcess call the body holds, which takes the
	// answer instead of fn. Its handler runs on the goroutine serving the
	// body, as a pool would run it: the caller would only wait. The body
	// then needs no copy, and serveBody returns once the handler has.
	into *directCall
	// here is BodySink.Here, when it applies: a request alone in the
	// body runs on the goroutine serving it.
	here bool
}

// put delivers the answer (nil: none is due). Every body is settled exactly
// once; from then on its related messages go to the session's stream.
func (r *bodyReply) put(msg []byte) {
	r.mu.Lock()
	switch {
	case msg == nil:
	case r.into != nil:
		r.into.take(msg)
	case r.fn != nil:
		r.fn(msg)
	}
	if r.settled != nil {
		r.settled()
	}
	r.fn, r.related, r.into, r.settled = nil, nil, nil, nil
	r.putDone = true
	done := r.done // under mu: its waiter sets it once serveBody has returned
	r.mu.Unlock()
	if done != nil {
		close(done)
	}
}

// relate delivers a message a handler of the body sends to the peer, and
// reports whether the body took it (false: it is settled, or has no sink
// for them).
func (r *bodyReply) relate(msg []byte) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.related == nil {
		return false
	}
	r.related(msg)
	return true
}

// relatedKey finds, in a pooled handler's context, the body its request
// came in (reqCtx.Value).
type relatedKey struct{}

// bodyOf returns the ServeBodySink call the message to came in, or nil.
func (to replyTo) bodyOf() *bodyReply {
	if to.b != nil {
		return to.b.body
	}
	return to.body
}

// Scanners for ServeBody, shared by every session with the same limits.
var scanners sync.Map // codec.Limits → *sync.Pool of *codec.Scanner

func getScanner(l *codec.Limits) *codec.Scanner {
	if p, ok := scanners.Load(*l); ok {
		if s, ok := p.(*sync.Pool).Get().(*codec.Scanner); ok {
			return s
		}
	}
	return codec.NewScanner(l)
}

func putScanner(l *codec.Limits, s *codec.Scanner) {
	p, ok := scanners.Load(*l)
	if !ok {
		p, _ = scanners.LoadOrStore(*l, new(sync.Pool))
	}
	p.(*sync.Pool).Put(s)
}

// BodyContext returns the context given to ServeBody or ServeBodySink
// with the body whose request the handler with context ctx serves, and
// whether there is one: a pooled handler's (as Related routing follows
// it; inline handlers and stream transports have none). Only its values
// are the handler's to read — what the transport put there for the
// request, such as the principal an HTTP middleware authenticated: the
// handler's own context says when to stop. It is valid while the body is
// being served.
func BodyContext(ctx context.Context) (context.Context, bool) {
	if r, ok := ctx.Value(relatedKey{}).(*bodyReply); ok && r.ctx != nil {
		return r.ctx, true
	}
	return nil, false
}

// BodyRemoteAddr returns the BodySink.RemoteAddr of the body whose
// request the handler with context ctx serves: "" when the transport gave
// none, and for inline handlers and stream transports (see BodyContext).
func BodyRemoteAddr(ctx context.Context) string {
	if r, ok := ctx.Value(relatedKey{}).(*bodyReply); ok {
		return r.remote
	}
	return ""
}

// WithSink returns a context under which the connection's Call, CallRaw
// and Notify hand their message to sink instead of the session's stream:
// a transport that carries several streams (Streamable HTTP) sends a
// message that belongs to none of its requests on the one it picks. sink
// runs on the sending goroutine, one message at a time, and owns the
// message only during the call. A context derived from a pooled handler's
// is routed by sink too, no longer to its body's Related sink.
func (c *Conn) WithSink(ctx context.Context, sink func(msg []byte)) context.Context {
	return context.WithValue(ctx, relatedKey{}, &bodyReply{c: c, related: sink})
}
