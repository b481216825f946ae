package pool

// ring is the pool's queue of tasks waiting for a worker: a ring buffer
// that grows by doubling up to its bound and never shrinks. Not safe for
// concurrent use: the pool guards it with its mutex.
//
// Invariant: 0 <= n <= len(buf); the tasks are buf[head], buf[head+1], …
// (indices mod len(buf)); every other slot is nil, so that a finished
// task's memory is not pinned by the queue.
type ring struct {
	buf  []Task
	head int
	n    int
}

func (r *ring) len() int { return r.n }

// push appends t, growing the buffer if it is full.
func (r *ring) push(t Task) {
	if r.n == len(r.buf) {
		r.grow()
	}
	r.buf[(r.head+r.n)%len(r.buf)] = t
	r.n++
}

// pop removes and returns the oldest task; ok is false if there is none.
func (r *ring) pop() (t Task, ok bool) {
	if r.n == 0 {
		return nil, false
	}
	t = r.buf[r.head]
	r.buf[r.head] = nil
	r.head = (r.head + 1) % len(r.buf)
	r.n--
	return t, true
}

func (r *ring) grow() {
	buf := make([]Task, max(16, 2*len(r.buf)))
	for i := range r.n {
		buf[i] = r.buf[(r.head+i)%len(r.buf)]
	}
	r.buf, r.head = buf, 0
}
