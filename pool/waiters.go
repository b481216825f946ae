package pool

import (
	"context"
	"sync"
)

// waitQueue is the FIFO of Acquires blocked for a slot, shared by Limiter
// and AdaptiveLimiter. Its owner's mutex guards it; waiters are recycled,
// so a wait allocates nothing in steady state.
type waitQueue struct {
	head, tail *waiter // oldest, newest
	free       sync.Pool
}

// waiter is an Acquire blocked for a slot.
type waiter struct {
	prev, next *waiter
	ready      chan struct{} // capacity 1: the slot, handed over by grantLocked
}

func (q *waitQueue) empty() bool { return q.head == nil }

// pushLocked queues a new waiter and returns it.
func (q *waitQueue) pushLocked() *waiter {
	w, _ := q.free.Get().(*waiter)
	if w == nil {
		w = &waiter{ready: make(chan struct{}, 1)}
	}
	w.prev, w.next = q.tail, nil
	if q.tail == nil {
		q.head = w
	} else {
		q.tail.next = w
	}
	q.tail = w
	return w
}

func (q *waitQueue) removeLocked(w *waiter) {
	if w.prev == nil {
		q.head = w.next
	} else {
		w.prev.next = w.next
	}
	if w.next == nil {
		q.tail = w.prev
	} else {
		w.next.prev = w.prev
	}
	w.prev, w.next = nil, nil
}

// grantLocked hands a slot, already counted by the owner, to the oldest
// waiter.
func (q *waitQueue) grantLocked() {
	w := q.head
	q.removeLocked(w)
	w.ready <- struct{}{}
}

// wait blocks, with mu unlocked, until w is granted a slot or ctx is done.
// A slot granted just as ctx ends is kept (nil); otherwise w leaves the
// queue and wait returns ctx.Err(). mu must not be held by the caller.
func (q *waitQueue) wait(ctx context.Context, mu *sync.Mutex, w *waiter) error {
	var err error
	select {
	case <-w.ready:
	case <-ctx.Done():
		mu.Lock()
		select {
		case <-w.ready: // granted as ctx ended: the slot is ours
		default:
			q.removeLocked(w)
			err = ctx.Err()
		}
		mu.Unlock()
	}
	q.free.Put(w)
	return err
}
