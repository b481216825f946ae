package conn

import "sync/atomic"

// loadOrMake returns what p points to, a new T made by the first caller
// that finds p nil: state a connection needs only once it is used (the
// shards of its pending calls and of its in-flight list) costs an idle
// connection one word.
func loadOrMake[T any](p *atomic.Pointer[T]) *T {
	if v := p.Load(); v != nil {
		return v
	}
	p.CompareAndSwap(nil, new(T))
	return p.Load()
}
