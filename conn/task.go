package conn

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/router"
)

// frameRef is a pooled copy of one frame, shared by the tasks it feeds and
// released when the last of them is done.
type frameRef struct {
	buf  *codec.Buffer
	refs atomic.Int32
}

var frameRefPool = sync.Pool{New: func() any { return new(frameRef) }}

// copyFrame copies frame for the tasks it will feed. The copy starts with
// one reference, the dispatcher's, which it drops with release once it has
// dispatched the whole frame: a task that finishes early cannot recycle the
// copy under the dispatcher's feet.
func copyFrame(frame []byte) *frameRef {
	r := frameRefPool.Get().(*frameRef)
	r.buf = respBufs.Get()
	r.buf.B = append(r.buf.B, frame...)
	r.refs.Store(1)
	return r
}

// release drops one reference; the last returns the copy to its pool. A
// nil r (no copy was needed) is fine.
func (r *frameRef) release() {
	if r != nil && r.refs.Add(-1) == 0 {
		respBufs.Put(r.buf)
		r.buf = nil
		frameRefPool.Put(r)
	}
}

// task is one request or notification handed to the pool. Tasks are
// recycled; the handler's context is not (reqCtx): a handler may keep its
// context past its return. The timer, Cancel and Shutdown reach a task
// through the inflight list, whose lock tells a live task from a recycled
// one (see inflightList).
type task struct {
	c     *Conn
	h     router.Handler
	req   router.Request // spans into ref's copy of the frame, or into own
	to    replyTo        // requests only
	ref   *frameRef      // a batch's shared copy of its frame; nil: own
	own   []byte         // the copy of a frame holding this message alone
	out   codec.Buffer   // the response of a message alone in its frame
	ctx   *reqCtx        // the handler's context
	start time.Time      // when handed off, for a shared Admission
	timer *time.Timer    // HandlerTimeout's; the worker's only
	mm    MethodMetrics  // the request's, for Options.Metrics, if resolved

	prev, next *task // in Conn.inflight while a request is unanswered
	listed     bool
}

var taskPool = sync.Pool{New: func() any { return new(task) }}

// ctxSlab is how many request contexts the reader allocates at once. A
// context kept past its handler keeps its slab alive: a few KiB at most.
const ctxSlab = 32

// newTask makes the task for the request or notification m of e, with
// the context rc (nil: one from the reader's slab, or a new one). Its
// request's spans are m's, into the frame m was read from: handOff then
// copies them (copyFrame), or leaves them for a caller that serves the
// request where it is (an InProcess call).
func (c *Conn) newTask(e *router.Entry, m *codec.Message, rd *reader, rc *reqCtx) *task {
	switch {
	case rc != nil:
	case rd != nil:
		if len(rd.ctxs) == 0 {
			rd.ctxs = make([]reqCtx, ctxSlab)
		}
		rc, rd.ctxs = &rd.ctxs[0], rd.ctxs[1:]
	default:
		rc = new(reqCtx)
	}
	rc.c = c
	t := taskPool.Get().(*task)
	t.c, t.h, t.ctx = c, e.Handler, rc
	t.req = router.Request{Method: e.Method, ID: m.ID, Params: m.Params}
	if c.opts.Admission != nil {
		t.start = time.Now()
	}
	c.track(t, e, m.Kind == codec.KindRequest, rd)
	return t
}

// copyFrame makes the task's request independent of frame, the buffer the
// reader reuses: a message alone in its frame (ref nil) is copied into
// the task's own buffer, recycled with the task; the elements of a batch
// share the copy *ref, made by the first of them.
func (t *task) copyFrame(frame []byte, m *codec.Message, ref **frameRef) {
	var copied []byte
	if ref == nil {
		t.own = append(t.own[:0], frame...)
		copied = t.own
	} else {
		if *ref == nil {
			*ref = copyFrame(frame)
		}
		t.ref = *ref
		t.ref.refs.Add(1)
		copied = t.ref.buf.B
	}
	r := m.Rebase(frame, copied)
	t.req.ID, t.req.Params = r.ID, r.Params
}

// Run serves the task on a pool worker.
func (t *task) Run() {
	t.c.taskStarted()
	t.runHere()
}

// runHere serves the task on the calling goroutine: a worker's, or an
// InProcess caller's (bodyReply.into), which never queued it.
func (t *task) runHere() {
	code, resp := t.runHandler()
	t.answer(code, resp, nil)
}

// runHandler runs the task's handler, under HandlerTimeout, and returns
// the response's code and the buffer it is in (nil for a notification).
// The handler's slots are freed before the peer can see its answer, so a
// peer that sends again at once is not refused for it.
func (t *task) runHandler() (codec.Code, *codec.Buffer) {
	c := t.c
	if d := c.opts.HandlerTimeout; d > 0 {
		rc := t.ctx // t may be recycled by the time the timer fires
		rc.setDeadline(time.Now().Add(d))
		t.timer = time.AfterFunc(d, func() { expire(rc) })
	}
	var resp *codec.Buffer
	switch {
	case t.req.ID == nil:
	case t.to.b == nil: // alone in its frame
		resp = &t.out
	default: // a batch keeps its elements' responses: pooled buffers
		resp = respBufs.Get()
	}
	code := c.run(t.ctx, t.h, &t.req, resp)
	c.release(t.start)
	return code, resp
}

// answer sends the task's response resp, unless someone else answered its
// request first (a timeout, Cancel, Shutdown), and finishes the task.
// rd is the reader on the reading goroutine, nil on any other.
func (t *task) answer(code codec.Code, resp *codec.Buffer, rd *reader) {
	c := t.c
	switch {
	case resp == nil:
	case c.inflight.claim(t):
		c.answeredTask(t, code)
		if resp == &t.out {
			c.emit(t.to.body, t.to.shape(t.out.B), rd)
		} else {
			c.answer(t.to, resp, rd)
		}
	case resp != &t.out:
		respBufs.Put(resp) // answered already: timeout, cancellation or shutdown
	}
	t.finish()
}

// expire answers a request whose handler outlived HandlerTimeout -32012,
// and cancels its context rc. The timer may fire as the worker finishes:
// the request is then no longer listed, and only rc is cancelled.
func expire(rc *reqCtx) {
	rc.cancelWith(context.DeadlineExceeded)
	if resp, to, ok := rc.c.inflight.claimAnswer(rc, errTimeout); ok {
		rc.c.answeredCtx(rc, errTimeout.Code)
		rc.c.answer(to, resp, nil)
	}
}

// abandon answers a task that could not be started and finishes it.
func (t *task) abandon(e *codec.Error, rd *reader) {
	t.c.release(t.start)
	if resp, to, ok := t.c.inflight.claimAnswer(t.ctx, e); ok {
		t.c.refusedTask(t, e.Code)
		t.c.answer(to, resp, rd)
	}
	t.finish()
}

func (t *task) finish() {
	c := t.c
	if t.timer != nil { // set before the handler ran, on this goroutine
		t.timer.Stop()
	}
	t.ctx.cancelWith(context.Canceled) // the context ends with the handler
	t.ref.release()
	own, out := t.own, t.out.B
	*t = task{}
	if cap(own) <= maxKeptBuffer && cap(out) <= maxKeptBuffer { // let a large one go
		t.own, t.out.B = own[:0], out[:0]
	}
	taskPool.Put(t)
	c.taskDone()
}

// maxKeptBuffer bounds the buffers a recycled task keeps for its next
// frame and response.
const maxKeptBuffer = 16 << 10
