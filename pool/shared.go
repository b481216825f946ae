package pool

import "sync"

// Shared hands its users one Pool, made by the first Acquire and closed
// once the last user has released it: the executor of callers that share
// one without owning it (every connection without a pool of its own).
//
// Its pool is a Pool like New's, on ants: its idle workers wait for the
// next task up to Options.IdleTimeout, and ants keeps two goroutines of
// its own (a clock and the reaper of idle workers) while the pool is open.
// All exit once the last user has released the pool and the tasks already
// accepted have returned; the next Acquire makes a new pool, at the cost
// of a new ants pool (its allocations and those two goroutines). So a caller
// that starts users one after another (a server that serves each request
// as a session of its own) holds one Acquire of its own for as long as it
// serves, and its users then find the pool open, its workers waiting.
//
// A pool made inside a testing/synctest bubble (by an Acquire there)
// belongs to it, with its goroutines: it must then not be shared with
// users outside the bubble, nor be left open when the bubble ends. Safe
// for concurrent use.
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
		p, err := newPool(&s.opts, s.overloaded)
		if err != nil { // options are normalised first: ants refuses none
			panic("pool: ants refused the options of a Shared pool: " + err.Error())
		}
		s.p = p
		s.overloaded = p.overloaded // every pool's refusals are alike
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
