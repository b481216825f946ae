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

// task is one request or notification handed to the pool. It is also the
// handler's context (taskctx.go), so it is never recycled: a handler may
// keep its context past its return. The reader takes its tasks from a slab
// of taskSlab, one allocation for that many requests.
type task struct {
	c     *Conn
	h     router.Handler
	req   router.Request // spans into ref's copy of the frame
	to    replyTo        // requests only
	ref   *frameRef
	start time.Time // when handed off, for a shared Admission

	// The context's state, under mu.
	mu         sync.Mutex
	done       chan struct{} // made on the first call to Done
	err        error
	stopParent func() bool // unregisters the parent's AfterFunc
	deadline   time.Time
	timer      *time.Timer // HandlerTimeout's; the worker's only

	prev, next *task // in Conn.inflight while a request is unanswered
	listed     bool
}

// taskSlab is how many tasks the reader allocates at once. A context kept
// past its handler keeps its slab alive: a few KiB at most.
const taskSlab = 32

// newTask makes the task for the request or notification m of e, whose
// spans point into ref's copy of the frame.
func (c *Conn) newTask(e *router.Entry, m codec.Message, ref *frameRef, reader bool) *task {
	var t *task
	if reader {
		if len(c.slab) == 0 {
			c.slab = make([]task, taskSlab)
		}
		t, c.slab = &c.slab[0], c.slab[1:]
	} else {
		t = new(task)
	}
	ref.refs.Add(1)
	t.c, t.h, t.ref = c, e.Handler, ref
	t.req = router.Request{Method: e.Method, ID: m.ID, Params: m.Params}
	if c.opts.Admission != nil {
		t.start = time.Now()
	}
	return t
}

// Run serves the task on a pool worker.
func (t *task) Run() {
	c := t.c
	if d := c.opts.HandlerTimeout; d > 0 {
		t.mu.Lock() // Deadline may be asked from any goroutine the handler starts
		t.deadline = time.Now().Add(d)
		t.mu.Unlock()
		t.timer = time.AfterFunc(d, t.expire)
	}
	isCall := t.req.ID != nil
	var resp *codec.Buffer
	if isCall {
		resp = respBufs.Get()
	}
	c.run(t, t.h, &t.req, resp)
	switch {
	case !isCall:
	case c.inflight.claim(t):
		c.answer(t.to, resp, false)
	default:
		respBufs.Put(resp) // answered already: timeout, cancellation or shutdown
	}
	t.finish()
}

// expire answers a request whose handler outlived HandlerTimeout -32012,
// and cancels its context.
func (t *task) expire() {
	t.cancelWith(context.DeadlineExceeded)
	if resp, ok := t.c.inflight.claimAnswer(t, errTimeout); ok {
		t.c.answer(t.to, resp, false)
	}
}

// abandon answers a task that could not be started and finishes it.
func (t *task) abandon(e *codec.Error, reader bool) {
	if resp, ok := t.c.inflight.claimAnswer(t, e); ok {
		t.c.answer(t.to, resp, reader)
	}
	t.finish()
}

func (t *task) finish() {
	c := t.c
	if t.timer != nil { // set before the handler ran, on this goroutine
		t.timer.Stop()
	}
	t.cancelWith(context.Canceled) // the context ends with the handler
	c.release(t.start)
	t.ref.release()
	// Let go of what a context kept past the handler would pin.
	t.h, t.req, t.ref = nil, router.Request{}, nil
	c.workers.Done()
}
