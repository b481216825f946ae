package conn

import "sync"

// inflightList holds the requests handed to the pool and not yet answered,
// as an intrusive doubly linked list (no allocation per request). Whoever
// claims a task first answers it: the worker with the handler's response, a
// timeout timer, or Shutdown past its deadline.
type inflightList struct {
	mu   sync.Mutex
	head task // sentinel
	gen  uint64
}

func (l *inflightList) init() {
	l.head.prev, l.head.next = &l.head, &l.head
}

func (l *inflightList) add(t *task) {
	l.mu.Lock()
	l.gen++
	t.gen = l.gen
	t.listed = true
	t.prev, t.next = l.head.prev, &l.head
	l.head.prev.next = t
	l.head.prev = t
	l.mu.Unlock()
}

// claim unlists t if it is still listed under gen and, if so, calls fn (when
// not nil) with the lock held, so that t and the frame its request points
// into stay alive while fn answers it. It reports whether t was claimed.
func (l *inflightList) claim(t *task, gen uint64, fn func(*task)) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !t.listed || t.gen != gen {
		return false
	}
	l.unlinkLocked(t)
	if fn != nil {
		fn(t)
	}
	return true
}

// claimAll claims every listed task, calling fn for each with the lock held.
func (l *inflightList) claimAll(fn func(*task)) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for l.head.next != &l.head {
		t := l.head.next
		l.unlinkLocked(t)
		fn(t)
	}
}

func (l *inflightList) unlinkLocked(t *task) {
	t.prev.next = t.next
	t.next.prev = t.prev
	t.prev, t.next = nil, nil
	t.listed = false
}
