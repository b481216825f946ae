package conn

import (
	"bytes"
	"context"
	"sync"

	"github.com/mcpwire/mcpwire/codec"
)

// inflightList holds the requests handed to the pool and not yet answered,
// as an intrusive doubly linked list (no allocation per request). Whoever
// claims a task first answers it: the worker with the handler's response,
// a timeout timer, Cancel, or Shutdown past its deadline.
//
// A listed task's frame copy is alive: the worker releases it only after
// its own claim, which finds the task unlisted once anyone else claimed it.
// So what reads a task's request bytes does it under mu, while the task is
// listed. Nothing is written to the peer under mu: answers are encoded
// under it and sent after.
type inflightList struct {
	mu         sync.Mutex
	head, tail *task // oldest and newest; nil when empty
}

func (l *inflightList) add(t *task) {
	l.mu.Lock()
	t.listed = true
	t.prev, t.next = l.tail, nil
	if l.tail == nil {
		l.head = t
	} else {
		l.tail.next = t
	}
	l.tail = t
	l.mu.Unlock()
}

// claim unlists t and reports whether it was still listed.
func (l *inflightList) claim(t *task) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !t.listed {
		return false
	}
	l.unlinkLocked(t)
	return true
}

// claimAnswer claims the listed request whose context is rc, if it is
// still listed, and encodes the error response e for it while its request
// bytes are sure to be alive. It finds the task under the lock, from the
// newest: a task is recycled once its worker is done, so a late timer
// holding only rc must not read a task it no longer owns.
func (l *inflightList) claimAnswer(rc *reqCtx, e *codec.Error) (*codec.Buffer, replyTo, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for t := l.tail; t != nil; t = t.prev {
		if t.ctx == rc {
			l.unlinkLocked(t)
			return errorResponse(t.req.ID, e), t.to, true
		}
	}
	return nil, replyTo{}, false
}

// find returns the context and reply target of the listed request whose
// id is id, claiming it when claim is set. What it returns stays valid
// after the task is recycled.
func (l *inflightList) find(id []byte, claim bool) (*reqCtx, replyTo, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for t := l.head; t != nil; t = t.next {
		if bytes.Equal(t.req.ID, id) {
			if claim {
				l.unlinkLocked(t)
			}
			return t.ctx, t.to, true
		}
	}
	return nil, replyTo{}, false
}

func (l *inflightList) unlinkLocked(t *task) {
	if t.prev == nil {
		l.head = t.next
	} else {
		t.prev.next = t.next
	}
	if t.next == nil {
		l.tail = t.prev
	} else {
		t.next.prev = t.prev
	}
	t.prev, t.next = nil, nil
	t.listed = false
}

// Cancel cancels the request the peer sent with this id — compared byte
// for byte with the id as received — if it is running or waiting for a
// worker: its handler's context is done. Per Options.Cancel it is still
// answered (CancelAnswer) or never (CancelSilent). Cancel reports whether
// such a request was found. Inline handlers cannot be cancelled: they hold
// the reader until they return.
func (c *Conn) Cancel(id []byte) bool {
	silent := c.opts.Cancel == CancelSilent
	rc, to, ok := c.inflight.find(id, silent)
	if !ok {
		return false
	}
	rc.cancelWith(context.Canceled)
	if silent {
		c.answeredCtx(rc, codec.CodeCancelled)
		c.answer(to, nil, false)
	}
	return true
}

// abandonAll answers every request still in flight -32004 and cancels its
// context: Shutdown's deadline has passed.
func (c *Conn) abandonAll() {
	type abandoned struct {
		ctx  *reqCtx
		to   replyTo
		resp *codec.Buffer
	}
	var all []abandoned
	l := &c.inflight
	l.mu.Lock()
	for l.head != nil {
		t := l.head
		l.unlinkLocked(t)
		all = append(all, abandoned{t.ctx, t.to, errorResponse(t.req.ID, errAbandoned)})
	}
	l.mu.Unlock()
	for _, a := range all {
		a.ctx.cancelWith(context.Canceled)
		c.answeredCtx(a.ctx, errAbandoned.Code)
		c.answer(a.to, a.resp, false)
	}
}
