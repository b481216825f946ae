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
	pool *codec.BufferPool
}

var frameRefPool = sync.Pool{New: func() any { return new(frameRef) }}

// copyFrame copies frame for the tasks it will feed. The copy starts with
// one reference, the reader's, which it drops with release once it has
// dispatched the whole frame: a task that finishes early cannot recycle the
// copy under the reader's feet.
func (c *Conn) copyFrame(frame []byte) *frameRef {
	r := frameRefPool.Get().(*frameRef)
	r.buf, r.pool = c.bufs.Get(), &c.bufs
	r.buf.B = append(r.buf.B, frame...)
	r.refs.Store(1)
	return r
}

// rebase returns the span of the copy that field is of frame. Fields are
// sub-slices of frame, so their offset is the difference of capacities.
func (r *frameRef) rebase(frame, field []byte) []byte {
	if field == nil {
		return nil
	}
	off := cap(frame) - cap(field)
	return r.buf.B[off : off+len(field) : off+len(field)]
}

// release drops one reference; the last returns the copy to its pool. A
// nil r (no copy was needed) is fine.
func (r *frameRef) release() {
	if r != nil && r.refs.Add(-1) == 0 {
		r.pool.Put(r.buf)
		r.buf, r.pool = nil, nil
		frameRefPool.Put(r)
	}
}

// task is one request or notification handed to the pool.
type task struct {
	c    *Conn
	h    router.Handler
	req  router.Request
	b    *batch
	slot int
	ref  *frameRef

	prev, next *task // in Conn.inflight while a request is unanswered
	listed     bool
	gen        uint64 // which listing: guards late timers against reuse
	keep       bool   // a fired timer may still hold t: do not pool it
}

var taskPool = sync.Pool{New: func() any { return new(task) }}

// Run serves the task on a pool worker.
func (t *task) Run() {
	t.serve()
	t.finish()
}

func (t *task) serve() {
	c := t.c
	ctx := c.ctx
	isCall := t.req.ID != nil
	if c.opts.HandlerTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.opts.HandlerTimeout)
		defer cancel()
		if isCall {
			gen := t.gen
			timer := time.AfterFunc(c.opts.HandlerTimeout, func() {
				c.inflight.claim(t, gen, func(t *task) { c.respond(t.b, t.slot, c.errorResponse(t.req.ID, errTimeout), false) })
			})
			defer func() {
				// A timer that fired may still be reading t: then t must
				// not be reused.
				t.keep = !timer.Stop()
			}()
		}
	}
	var resp *codec.Buffer
	if isCall {
		resp = c.bufs.Get()
	}
	c.run(ctx, t.h, &t.req, resp)
	switch {
	case !isCall:
		c.respond(t.b, t.slot, nil, false) // a batch still counts it done
	case c.inflight.claim(t, t.gen, nil):
		c.respond(t.b, t.slot, resp, false)
	default:
		c.bufs.Put(resp) // answered already (timeout or shutdown)
	}
}

// abandon answers a task that could not be started and finishes it.
func (t *task) abandon(e *codec.Error) {
	switch {
	case t.req.ID == nil:
		t.c.respond(t.b, t.slot, nil, true)
	case t.c.inflight.claim(t, t.gen, nil):
		t.c.answer(t.b, t.slot, true, t.req.ID, e)
	}
	t.finish()
}

func (t *task) finish() {
	c := t.c
	c.limit.Release()
	t.ref.release()
	if !t.keep {
		*t = task{}
		taskPool.Put(t)
	}
	c.workers.Done()
}
