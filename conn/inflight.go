package conn

import (
	"bytes"
	"context"
	"sync"
	"sync/atomic"

	"github.com/mcpwire/mcpwire/codec"
)

// inflightList holds the requests handed to the pool and not yet answered,
// as intrusive doubly linked lists (no allocation per request), one per
// shard: requests served on many goroutines at once (an InProcess
// session's callers) do not all queue for one lock. Whoever claims a task
// first answers it: the worker with the handler's response, a timeout
// timer, Cancel, or Shutdown past its deadline.
//
// A listed task's frame copy is alive: the worker releases it only after
// its own claim, which finds the task unlisted once anyone else claimed it.
// So what reads a task's request bytes does it under its shard's mu, while
// the task is listed. Nothing is written to the peer under mu: answers are
// encoded under it and sent after.
type inflightList struct {
	// made by the first request listed: a connection whose handlers are
	// all inline holds none
	shards atomic.Pointer[[inflightShards]inflightShard]
}

// inflightShards is how many lists a connection's requests spread over,
// by the last byte of their id.
const inflightShards = 8

type inflightShard struct {
	mu         sync.Mutex
	head, tail *task // oldest and newest; nil when empty
	_          [40]byte
}

// shardOf returns the shard of the request with this id, by its last
// byte; nil if nothing was ever listed.
func (l *inflightList) shardOf(id []byte) *inflightShard {
	shards := l.made()
	if shards == nil {
		return nil
	}
	var b byte
	if len(id) > 0 {
		b = id[len(id)-1]
	}
	return &shards[b%inflightShards]
}

// made returns the shards, none if nothing was ever listed. (A range
// over a nil array pointer runs, and indexes it.)
func (l *inflightList) made() []inflightShard {
	if shards := l.shards.Load(); shards != nil {
		return shards[:]
	}
	return nil
}

func (l *inflightList) add(t *task) {
	loadOrMake(&l.shards)
	sh := l.shardOf(t.req.ID)
	sh.mu.Lock()
	t.listed = true
	t.prev, t.next = sh.tail, nil
	if sh.tail == nil {
		sh.head = t
	} else {
		sh.tail.next = t
	}
	sh.tail = t
	sh.mu.Unlock()
}

// claim unlists t and reports whether it was still listed. t's request is
// alive: its worker calls it.
func (l *inflightList) claim(t *task) bool {
	sh := l.shardOf(t.req.ID)
	if sh == nil {
		return false // nothing was ever listed
	}
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if !t.listed {
		return false
	}
	sh.unlinkLocked(t)
	return true
}

// claimAnswer claims the listed request whose context is rc, if it is
// still listed, and encodes the error response e for it while its request
// bytes are sure to be alive. It finds the task under the lock, from the
// newest: a task is recycled once its worker is done, so a late timer
// holding only rc must not read a task it no longer owns.
func (l *inflightList) claimAnswer(rc *reqCtx, e *codec.Error) (*codec.Buffer, replyTo, bool) {
	shards := l.made()
	for i := range shards {
		sh := &shards[i]
		sh.mu.Lock()
		for t := sh.tail; t != nil; t = t.prev {
			if t.ctx == rc {
				sh.unlinkLocked(t)
				resp, to := errorResponse(t.req.ID, e), t.to
				sh.mu.Unlock()
				return resp, to, true
			}
		}
		sh.mu.Unlock()
	}
	return nil, replyTo{}, false
}

// find returns the context and reply target of the listed request whose
// id is id, claiming it when claim is set. What it returns stays valid
// after the task is recycled.
func (l *inflightList) find(id []byte, claim bool) (*reqCtx, replyTo, bool) {
	sh := l.shardOf(id)
	if sh == nil {
		return nil, replyTo{}, false
	}
	sh.mu.Lock()
	defer sh.mu.Unlock()
	for t := sh.head; t != nil; t = t.next {
		if bytes.Equal(t.req.ID, id) {
			if claim {
				sh.unlinkLocked(t)
			}
			return t.ctx, t.to, true
		}
	}
	return nil, replyTo{}, false
}

func (l *inflightShard) unlinkLocked(t *task) {
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
		c.answer(to, nil, nil)
	}
	return true
}

// cancelBody cancels, as Cancel does, every listed request that came in
// the body r (BodyCancel), and returns how many.
func (c *Conn) cancelBody(r *bodyReply) int {
	silent := c.opts.Cancel == CancelSilent
	type cancelled struct {
		ctx *reqCtx
		to  replyTo
	}
	var all []cancelled
	for i, shards := 0, c.inflight.made(); i < len(shards); i++ {
		sh := &shards[i]
		sh.mu.Lock()
		for t := sh.head; t != nil; {
			next := t.next
			if t.ctx.body == r {
				all = append(all, cancelled{t.ctx, t.to})
				if silent {
					sh.unlinkLocked(t)
				}
			}
			t = next
		}
		sh.mu.Unlock()
	}
	for _, a := range all {
		a.ctx.cancelWith(context.Canceled)
		if silent {
			c.answeredCtx(a.ctx, codec.CodeCancelled)
			c.answer(a.to, nil, nil)
		}
	}
	return len(all)
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
	shards := c.inflight.made()
	for i := range shards {
		sh := &shards[i]
		sh.mu.Lock()
		for sh.head != nil {
			t := sh.head
			sh.unlinkLocked(t)
			all = append(all, abandoned{t.ctx, t.to, errorResponse(t.req.ID, errAbandoned)})
		}
		sh.mu.Unlock()
	}
	for _, a := range all {
		a.ctx.cancelWith(context.Canceled)
		c.answeredCtx(a.ctx, errAbandoned.Code)
		c.answer(a.to, a.resp, nil)
	}
}
