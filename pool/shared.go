package pool

import "sync"

// Shared hands its users one Pool, made by the first Acquire and closed
// once the last user has released it: the executor of callers that share
// one without owning it (every connection without a pool of its own).
//
// Its pool is not on ants: a worker is a goroutine started by the Submit
// (or the worker) that needs it, which, once the queue is empty, waits
// for the next task: up to Options.IdleTimeout, except one worker, kept
// while the pool is open; all exit at once when the last user releases
// the pool. So a pool starts no goroutine of its own (ants starts a clock
// and a reaper per pool), none is left once the pool is closed and its
// tasks have returned, and it costs a few allocations to make and close:
// a user alone in the process (a session per HTTP request, one after
// another) makes and closes one per use at that cost. A worker started by
// a Submit inside a testing/synctest bubble belongs to that bubble, as
// the tasks it runs do; the pool must then not be shared with users
// outside the bubble, nor be left open when the bubble ends. Safe for
// concurrent use.
type Shared struct {
	opts Options

	mu         sync.Mutex
	p          *Pool
	users      int
	overloaded *OverloadedError // the first pool's, for the next ones
}

// NewShared returns a Shared whose pools are made with opts (copied; nil:
// the defaults). It starts nothing: the first Acquire makes the pool.
func NewShared(opts *Options) *Shared {
	s := &Shared{}
	if opts != nil {
		s.opts = *opts
	}
	return s
}

// Acquire returns the shared pool, making it if there is none, and counts
// one more user; each Acquire is paired with a Release.
func (s *Shared) Acquire() *Pool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.p == nil {
		s.p, _, _ = newPool(&s.opts, s.overloaded)
		s.overloaded = s.p.overloaded // every pool's refusals are alike
	}
	s.users++
	return s.p
}

// Release gives back a pool Acquire returned (another pool is ignored).
// The last user's Release closes it: from then on it takes no more tasks,
// and its drain loops exit once the tasks already accepted have returned
// (Release does not wait for that: Close does). The next Acquire makes a
// new pool.
func (s *Shared) Release(p *Pool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.p != p {
		return
	}
	if s.users--; s.users == 0 {
		s.p = nil
		p.stop()
	}
}
