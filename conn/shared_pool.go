package conn

import "sync"

// HoldSharedPool keeps open the pool that runs the non-inline handlers of
// every connection without Options.Pool, and returns the func that lets
// it go (it may be called more than once: the first call counts).
//
// That pool is made by its first user and closed once the last has ended,
// and making it costs an ants pool: allocations and two goroutines of its
// own. A server that serves each request as a session of its own (a POST
// on an HTTP endpoint, for instance) holds it for as long as it serves, so
// that its sessions, one after another, find the pool open and its
// workers waiting: transport's HTTP handlers do, from their first such
// session to their Shutdown. Inside a testing/synctest bubble, hold and
// let go inside the same bubble (see pool.Shared).
func HoldSharedPool() (release func()) {
	p := defaultPool.Acquire()
	var once sync.Once
	return func() { once.Do(func() { defaultPool.Release(p) }) }
}
