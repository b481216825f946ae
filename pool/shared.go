package pool

import "sync"

// Shared hands its users one Pool, made by the first Acquire and closed
// once the last user has released it: the executor of callers that share
// one without owning it (every connection without a pool of its own). A
// burst of work on one user warms workers that the next user's work runs
// on. Safe for concurrent use.
type Shared struct {
	opts Options

	mu    sync.Mutex
	p     *Pool
	users int
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
// one more user; each Acquire is paired with a Release. It panics if New
// refuses the options (it does not with the ones it normalises: see New).
func (s *Shared) Acquire() *Pool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.p == nil {
		p, err := New(&s.opts)
		if err != nil {
			panic("pool: Shared cannot make its pool: " + err.Error())
		}
		s.p = p
	}
	s.users++
	return s.p
}

// Release gives back a pool Acquire returned (another pool is ignored).
// The last user's Release closes it: from then on it takes no more tasks,
// and its goroutines exit once the tasks already accepted have returned
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
