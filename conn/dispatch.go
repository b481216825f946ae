package conn

import (
	"context"
	"errors"
	"time"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/pool"
	"github.com/mcpwire/mcpwire/router"
)

// Errors the connection answers with on its own account. Shared, read-only.
var (
	errTimeout   = codec.NewError(codec.CodeRequestTimeout, "")
	errAbandoned = codec.NewError(codec.CodeAbandoned, "Request abandoned: the server shut down while it ran")
)

// serveMessage serves one message of frame. Problems caused by the peer
// are logged at debug level only: the peer is told, and a hostile one must
// not flood the log.
func (c *Conn) serveMessage(frame []byte, m *codec.Message, to replyTo, rd *reader, ref **frameRef) {
	switch m.Kind {
	case codec.KindRequest, codec.KindNotification:
		c.dispatch(frame, m, to, rd, ref)
	case codec.KindInvalid:
		if lostResponse(m) && c.calls.failMalformed(m) { // rare
			c.opts.Logger.Debug("jsonrpc: malformed response fails its call", "id", string(m.ID), "err", m.Err)
		}
		c.answer(to, errorResponse(m.ID, c.invalid(m.Err)), rd)
	case codec.KindResult, codec.KindError:
		c.calls.deliver(m, c.opts.Logger)
		c.answer(to, nil, rd)
	default: // KindBadResponse
		if c.calls.failMalformed(m) {
			c.opts.Logger.Debug("jsonrpc: malformed response fails its call", "id", string(m.ID), "err", m.Err)
		} else {
			c.opts.Logger.Debug("jsonrpc: malformed response dropped", "err", m.Err)
		}
		c.answer(to, nil, rd)
	}
}

// dispatch serves one request or notification: from an interceptor, inline
// on the dispatching goroutine, or on the pool.
func (c *Conn) dispatch(frame []byte, m *codec.Message, to replyTo, rd *reader, ref **frameRef) {
	name := m.Method
	if m.MethodEscaped {
		name = m.AppendMethod(nil) // rare: escaped method names
	}
	isCall := m.Kind == codec.KindRequest
	e, ok := c.opts.Router.Lookup(name)
	switch {
	case !ok:
		var err *codec.Error
		if isCall { // rare path: say which name was not found
			err = codec.ErrMethodNotFound.WithData(map[string]string{"method": string(name)})
		}
		c.refuse(to, rd, isCall, nil, m.ID, err)
	case c.stopping.Load():
		c.refuse(to, rd, isCall, e, m.ID, c.shuttingDown)
	case isCall && e.Intercept != nil && c.intercept(e, m, to, rd):
	case e.Inline:
		c.serveInline(e, e.Handler, c.request(e, m, rd), m, to, rd)
	default:
		c.handOff(frame, m, e, to, rd, ref)
		rd.unmark() // the hand-off may have waited
	}
}

// held reports whether the answer to a message goes straight into the
// reader's held output: a 2.0 message alone in a frame the reader read.
// (A 1.0 message's answer goes through answer, which shapes it.)
func (to replyTo) held(rd *reader) bool {
	return rd != nil && to.b == nil && to.body == nil && !to.v1()
}

// request returns the request a handler or interceptor sees on the
// dispatching goroutine: the reader's own (no allocation), or a new one.
func (c *Conn) request(e *router.Entry, m *codec.Message, rd *reader) *router.Request {
	if rd != nil {
		rd.req = router.Request{Method: e.Method, ID: m.ID, Params: m.Params}
		return &rd.req
	}
	return &router.Request{Method: e.Method, ID: m.ID, Params: m.Params}
}

// doneRequest lets go of the reader's request once served, so that it pins
// no buffer.
func (c *Conn) doneRequest(rd *reader) {
	if rd != nil {
		rd.req = router.Request{}
	}
}

// intercept lets e's interceptor answer the request m and reports whether
// it did. Alone on the reader, the answer is encoded straight into the
// held output: no allocation, no hand-off. Under middleware
// (e.Intercepted) the answer goes through it, as an inline handler's.
func (c *Conn) intercept(e *router.Entry, m *codec.Message, to replyTo, rd *reader) bool {
	if e.Intercepted != nil {
		return c.interceptGuarded(e, m, to, rd)
	}
	result, ok := c.interceptTimed(e, c.request(e, m, rd), rd)
	c.doneRequest(rd)
	switch {
	case !ok:
		return false
	case to.held(rd):
		start := len(rd.held.B)
		rd.held.B = codec.AppendResult(rd.held.B, m.ID, result)
		rd.held.B = c.s.FrameInPlace(rd.held.B, start)
		rd.heldFull()
	default:
		resp := respBufs.Get()
		resp.B = codec.AppendResult(resp.B, m.ID, result)
		c.answer(to, resp, rd)
	}
	return true
}

// interceptGuarded is intercept for a method under middleware: the
// interceptor's result is answered through e.Intercepted, the middleware
// around it, which may refuse it as it would refuse a miss.
func (c *Conn) interceptGuarded(e *router.Entry, m *codec.Message, to replyTo, rd *reader) bool {
	req := c.request(e, m, rd)
	result, ok := e.Intercept.Intercept(req)
	if !ok {
		c.doneRequest(rd)
		return false
	}
	req.Intercepted = result
	c.serveInline(e, e.Intercepted, req, m, to, rd)
	return true
}

// serveInline runs h, the inline handler of e (or the middleware around
// an interceptor's answer), for req, the request m, on the dispatching
// goroutine, and answers it. Alone on the reader, its response is encoded
// straight into the held output.
func (c *Conn) serveInline(e *router.Entry, h router.Handler, req *router.Request, m *codec.Message, to replyTo, rd *reader) {
	if m.Kind == codec.KindRequest && to.held(rd) {
		start := len(rd.held.B)
		c.runInline(c.ctx, e, h, req, &rd.held, rd)
		rd.held.B = c.s.FrameInPlace(rd.held.B, start)
		rd.heldFull()
	} else if m.Kind == codec.KindRequest && to.b != nil {
		out, start := to.b.inArena()
		c.runInline(c.ctx, e, h, req, out, rd)
		to.b.completeInArena(to.slot, start, rd)
	} else {
		var resp *codec.Buffer
		if m.Kind == codec.KindRequest {
			resp = respBufs.Get()
		}
		c.runInline(c.ctx, e, h, req, resp, rd)
		c.answer(to, resp, rd)
	}
	c.doneRequest(rd)
}

// handOff runs the handler of e on the pool, with a copy of the frame
// (shared through ref by the elements of a batch, the task's own for a
// message alone): the frame itself is reused for the next read.
func (c *Conn) handOff(frame []byte, m *codec.Message, e *router.Entry, to replyTo, rd *reader, ref **frameRef) {
	isCall := m.Kind == codec.KindRequest
	if !c.admitHandler(to, rd, e, m) {
		return
	}
	var shared **frameRef // a batch's elements share one copy of the frame
	if to.b != nil {
		shared = ref
	}
	var rc *reqCtx
	// An InProcess call, or a body whose goroutine would only wait
	// (BodySink.Here): the handler runs on the goroutine serving it.
	here := to.body != nil && (to.body.into != nil || (to.body.here && to.b == nil))
	if here && to.body.into != nil {
		rc = &to.body.into.ctx // one allocation for both
	}
	t := c.newTask(e, m, rd, rc)
	if !here { // the frame is reused before the handler runs, or a batch's
		t.copyFrame(frame, m, shared)
	}
	t.ctx.body = to.bodyOf()
	if isCall {
		t.to = to
		c.inflight.add(t)
	}
	switch {
	case here:
		t.runHere()
	default:
		c.queued.Add(1) // before a worker can start it: see taskStarted
		c.submit(t, rd)
	}
	if !isCall {
		c.answer(to, nil, rd) // a notification is settled once handed off
	}
}

// submit hands t to the pool, and answers it when the pool refuses.
func (c *Conn) submit(t *task, rd *reader) {
	if refusal := c.submitRefusal(t, rd); refusal != nil {
		c.taskStarted()
		t.abandon(refusal, rd)
	}
}

// submitRefusal hands t to the pool and returns nil, or the error to answer
// t with when the pool refuses it. The reader never waits blindly for room
// in a full pool: with a pool that can stop waiting (SubmitContext), it
// first lets the peer have what is done, and waits no more than it would
// for admission (see wait): not at all while this connection's own calls
// are unanswered, and no longer once one is made (then t is refused
// -32000), for their responses can only come through it.
func (c *Conn) submitRefusal(t *task, rd *reader) *codec.Error {
	var err error
	if sc := c.submitCtx; rd != nil && sc != nil {
		if err = sc.SubmitContext(doneCtx, t); err == doneCtx.Err() { // full
			err = rd.submitWaiting(sc, t)
		}
	} else {
		err = c.executor().Submit(t)
	}
	switch {
	case err == nil:
		return nil
	case err == errReaderMustRead, isOverloaded(err):
		return c.overloaded
	}
	return c.shuttingDown
}

// isOverloaded reports whether err is the pool's *pool.OverloadedError.
// Apart from submitRefusal, so that its target escapes (errors.As) only on
// a refusal: a hand-off that succeeds allocates nothing here.
func isOverloaded(err error) bool {
	var oe *pool.OverloadedError
	return errors.As(err, &oe)
}

// errReaderMustRead stops the reader's wait for room in the pool: it must
// go on reading for the responses to this connection's own calls.
var errReaderMustRead = errors.New("conn: the reader must go on reading")

// submitWaiting is the reader's wait for room in a full pool.
func (rd *reader) submitWaiting(sc contextSubmitter, t *task) error {
	c := rd.c
	rd.flushHeld()
	wctx, stop, busy := c.calls.readerWait(c.ctx)
	if busy {
		return errReaderMustRead
	}
	defer stop()
	err := sc.SubmitContext(wctx, t)
	if err != nil && wctx.Err() != nil && c.ctx.Err() == nil {
		return errReaderMustRead // a call was made meanwhile
	}
	return err
}

// contextSubmitter is an Executor whose wait for room can be cut short, as
// *pool.Pool's: see submitRefusal.
type contextSubmitter interface {
	SubmitContext(ctx context.Context, t Task) error
}

// doneCtx is a context already cancelled: SubmitContext with it queues a
// task only if it can without waiting.
var doneCtx = func() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}()

// admitHandler takes the slots the handler of m needs (acquire) and counts
// its task (admit) unless the connection is stopping; it reports false
// having refused m.
func (c *Conn) admitHandler(to replyTo, rd *reader, e *router.Entry, m *codec.Message) bool {
	isCall := m.Kind == codec.KindRequest
	if err := c.acquire(rd); err != nil {
		c.refuse(to, rd, isCall, e, m.ID, err)
		return false
	}
	c.inFlight(1)
	if !c.admit() { // stopping began while this one waited
		c.release(time.Time{})
		c.refuse(to, rd, isCall, e, m.ID, c.shuttingDown)
		return false
	}
	return true
}

// acquire takes a slot of the connection's MaxInFlight, then one of the
// shared Admission, waiting or not as Options.Overload says. It returns
// the error to answer with when the request is refused.
func (c *Conn) acquire(rd *reader) *codec.Error {
	if !c.limit.TryAcquire() {
		if c.opts.Overload == pool.Reject {
			return c.overloaded
		}
		if err := c.wait(c.limit, rd); err != nil {
			return err
		}
	}
	a := c.opts.Admission
	if a == nil || a.TryAcquire() {
		return nil
	}
	refusal := c.overloaded
	if c.opts.Overload == pool.Block {
		if refusal = c.wait(a, rd); refusal == nil {
			return nil
		}
	}
	c.limit.Release(0)
	return refusal
}

// wait blocks until a admits the request (Overload is Block). The reader
// first lets the peer have what is done; and it never waits while this
// connection has outgoing calls unanswered, nor goes on waiting once one
// is made: their responses can only come through it, and the handlers
// holding every slot may be the ones waiting for them. The request is
// then refused -32000, as under Reject.
func (c *Conn) wait(a pool.Admission, rd *reader) *codec.Error {
	ctx := c.ctx
	if rd != nil {
		rd.flushHeld()
		wctx, stop, busy := c.calls.readerWait(c.ctx)
		if busy {
			return c.overloaded
		}
		defer stop()
		ctx = wctx
	}
	if a.Acquire(ctx) == nil {
		return nil
	}
	if c.ctx.Err() != nil {
		return c.shuttingDown
	}
	return c.overloaded
}

// release frees the slots acquire took; start is when the handler was
// handed off (zero: it never was).
func (c *Conn) release(start time.Time) {
	c.limit.Release(0)
	c.inFlight(-1)
	if a := c.opts.Admission; a != nil {
		var d time.Duration
		if !start.IsZero() {
			d = time.Since(start)
		}
		c.releaseAdmission(a, d)
	}
}

// releaseAdmission calls a.Release, which is user code: a panic there is
// logged, not let loose on a worker, where it would leave the task
// unfinished and Close waiting for it forever.
func (c *Conn) releaseAdmission(a pool.Admission, d time.Duration) {
	defer func() {
		if r := recover(); r != nil {
			c.opts.Logger.Error("jsonrpc: Admission.Release panicked", "panic", r)
		}
	}()
	a.Release(d)
}
