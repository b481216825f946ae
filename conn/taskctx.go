package conn

import (
	"context"
	"time"
)

// A task is its handler's context: the connection's context, plus the
// request's own cancellation (Conn.Cancel, HandlerTimeout, the handler
// returning) — with no allocation unless the handler asks for Done, when
// the channel is made and the parent's cancellation is followed through
// context.AfterFunc. It never takes the inflight list's lock.

// Deadline returns the handler's deadline (HandlerTimeout), or the
// parent's if that is earlier.
func (t *task) Deadline() (time.Time, bool) {
	t.mu.Lock()
	d := t.deadline
	t.mu.Unlock()
	pd, ok := t.c.ctx.Deadline()
	if d.IsZero() || (ok && pd.Before(d)) {
		return pd, ok
	}
	return d, true
}

// Done returns a channel closed when the request is cancelled, times out,
// its connection closes, or its handler has returned.
func (t *task) Done() <-chan struct{} {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.done == nil {
		t.done = make(chan struct{})
		parent := t.c.ctx
		if t.err == nil {
			t.err = parent.Err()
		}
		if t.err != nil {
			close(t.done)
		} else {
			t.stopParent = context.AfterFunc(parent, func() { t.cancelWith(context.Cause(parent)) })
		}
	}
	return t.done
}

// Err returns why the context is done, or nil.
func (t *task) Err() error {
	t.mu.Lock()
	err, made := t.err, t.done != nil
	t.mu.Unlock()
	if err != nil || made {
		return err // once Done is made, the parent's end arrives through it
	}
	return t.c.ctx.Err()
}

// Value looks key up in the connection's context.
func (t *task) Value(key any) any { return t.c.ctx.Value(key) }

func (t *task) String() string { return "conn.requestContext" }

// cancelWith ends the context with err, once.
func (t *task) cancelWith(err error) {
	t.mu.Lock()
	if t.err == nil {
		t.err = err
		if t.done != nil {
			close(t.done)
		}
	}
	stop := t.stopParent
	t.stopParent = nil
	t.mu.Unlock()
	if stop != nil {
		stop()
	}
}
