package conn

// Busy reports whether a request of the peer is in flight: handed to the
// pool (or run by the reader with a pooled request's bookkeeping) and not
// yet answered. Inline handlers, which hold the reader until they return,
// are not counted. It takes each in-flight shard's lock in turn: meant for
// occasional looks (an idle timeout's), not for every message. Safe for
// concurrent use.
func (c *Conn) Busy() bool {
	shards := c.inflight.made()
	for i := range shards {
		sh := &shards[i]
		sh.mu.Lock()
		busy := sh.head != nil
		sh.mu.Unlock()
		if busy {
			return true
		}
	}
	return false
}
