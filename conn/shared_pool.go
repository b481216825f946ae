package conn

import "sync"

// HoldSharedPool keeps open the pool that runs the non-inline handlers of
// every connection without Options.Pool, if c has taken it (it has handed
// a request off to it), and returns the func that lets it go (it may be
// called more than once: the first call counts); nil if c has taken none,
// or has ended. Any goroutine may call it.
//
// That pool is made by its first user and closed once the last has ended,
// and making it costs an ants pool: allocations and two goroutines of its
// own. A server that serves each request as a session of its own (a POST
// on an HTTP endpoint, for instance) holds it from its first session that
// took it for as long as it serves, so that its sessions, one after
// another, find the pool open and its workers waiting; a server whose
// handlers all run inline never makes it. transport's HTTP handlers do so
// until their Shutdown. Inside a testing/synctest bubble, hold and let go
// inside the same bubble (see pool.Shared).
func (c *Conn) HoldSharedPool() (release func()) {
	p := c.shared.Load()
	if p == nil {
		return nil
	}
	// Until c has ended it holds p, so Acquire returns p, making nothing.
	if q := defaultPool.Acquire(); q != p { // c has ended and let p go
		defaultPool.Release(q)
		return nil
	}
	var once sync.Once
	return func() { once.Do(func() { defaultPool.Release(p) }) }
}
