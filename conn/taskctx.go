package conn

import (
	"context"
	"sync"
	"time"

	"github.com/mcpwire/mcpwire/router"
)

// reqCtx is a pooled request's context: the connection's context, plus the
// request's own cancellation (Conn.Cancel, HandlerTimeout, the handler
// returning) — with no allocation of its own unless the handler asks for
// Done, when the channel is made and the parent's cancellation is followed
// through context.AfterFunc. It is never recycled (the reader takes them
// from a slab), and it never takes the inflight list's lock.
type reqCtx struct {
	c          *Conn
	body       *bodyReply // the ServeBodySink call the request came in, or nil
	mu         sync.Mutex
	done       chan struct{} // made on the first call to Done
	err        error
	stopParent func() bool   // unregisters the parent's AfterFunc
	stopBody   func() bool   // and the body's (see bodyCtx)
	deadline   int64         // HandlerTimeout's, in Unix nanoseconds; 0: none
	entry      *router.Entry // for Options.Metrics: the request's method,
	since      time.Duration // and its hand-off (Conn.clock)
}

func (t *reqCtx) setDeadline(d time.Time) {
	t.mu.Lock() // Deadline may be asked from any goroutine the handler starts
	t.deadline = d.UnixNano()
	t.mu.Unlock()
}

// Deadline returns the handler's deadline (HandlerTimeout), or the
// parent's if that is earlier.
func (t *reqCtx) Deadline() (time.Time, bool) {
	t.mu.Lock()
	ns := t.deadline
	t.mu.Unlock()
	pd, ok := t.c.ctx.Deadline()
	if ns == 0 || (ok && pd.UnixNano() < ns) {
		return pd, ok
	}
	return time.Unix(0, ns), true
}

// Done returns a channel closed when the request is cancelled, times out,
// its connection closes, or its handler has returned.
func (t *reqCtx) Done() <-chan struct{} {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.done == nil {
		t.done = make(chan struct{})
		parent, body := t.c.ctx, t.bodyCtx()
		if t.err == nil {
			t.err = parent.Err()
		}
		if t.err == nil && body != nil {
			t.err = body.Err()
		}
		if t.err != nil {
			close(t.done)
		} else {
			t.stopParent = context.AfterFunc(parent, func() { t.cancelWith(context.Cause(parent)) })
			if body != nil {
				t.stopBody = context.AfterFunc(body, func() { t.cancelWith(context.Cause(body)) })
			}
		}
	}
	return t.done
}

// bodyCtx returns the context of the body whose request runs on the
// goroutine serving it (BodySink.Here), when it can end: nobody waits on
// it then, so the request's context ends with it. Watched only once Done
// is asked for, as the connection's is: a handler that never asks pays
// nothing.
func (t *reqCtx) bodyCtx() context.Context {
	if b := t.body; b != nil && b.here && b.ctx.Done() != nil {
		return b.ctx
	}
	return nil
}

// Err returns why the context is done, or nil.
func (t *reqCtx) Err() error {
	t.mu.Lock()
	err, made := t.err, t.done != nil
	t.mu.Unlock()
	if err != nil || made {
		return err // once Done is made, the parents' end arrives through it
	}
	if err := t.c.ctx.Err(); err != nil {
		return err
	}
	if body := t.bodyCtx(); body != nil {
		return body.Err()
	}
	return nil
}

// Value answers relatedKey with the body the request came in (or what
// the connection's context holds for it, looked up once), and looks
// any other key up in the connection's context.
func (t *reqCtx) Value(key any) any {
	if _, ok := key.(relatedKey); ok {
		if t.body != nil {
			return t.body
		}
		return t.c.ctxRelated // a stream's request: no walk up ctx
	}
	return t.c.ctx.Value(key)
}

func (t *reqCtx) String() string { return "conn.requestContext" }

// cancelWith ends the context with err, once.
func (t *reqCtx) cancelWith(err error) {
	t.mu.Lock()
	if t.err == nil {
		t.err = err
		if t.done != nil {
			close(t.done)
		}
	}
	stop, stopBody := t.stopParent, t.stopBody
	t.stopParent, t.stopBody = nil, nil
	t.mu.Unlock()
	if stop != nil {
		stop()
	}
	if stopBody != nil {
		stopBody()
	}
}
