package cache

// The eviction policy is S3-FIFO (Yang et al., "FIFO queues are all you
// need for cache eviction", SOSP 2023), counted in entries and in bytes:
//
//   - a new entry goes to the head of the small queue, or straight to the
//     main queue when its key is in the ghost queue (it was evicted from
//     the small queue recently and asked for again);
//   - a hit only bumps the entry's two-bit counter (entry.touch): readers
//     never take the policy's lock, nor move anything;
//   - while the cache holds more than MaxEntries or MaxBytes, one entry is
//     evicted: from the small queue when it holds a tenth of either bound
//     or more (or the main queue is empty), else from the main queue;
//   - the small queue's tail moves to the main queue if it was hit while
//     there (counter reset), else it is evicted and its hash remembered in
//     the ghost queue; the main queue's tail goes back to the head with
//     its counter decremented if it was hit, else it is evicted.
//
// One-hit wonders thus leave after a short stay in the small queue, and a
// scan of new keys cannot flush the entries that are being reused. Expired
// entries are evicted whatever their counter when they reach a tail.
//
// Everything here runs under Cache.mu. Invariants: each stored entry is in
// exactly one queue and in the index; Cache.bytes and Cache.n are the sums
// over both queues.

// queue is an intrusive FIFO of entries: head newest, tail oldest.
type queue struct {
	head, tail *entry
	n          int
	bytes      int64
}

func (q *queue) pushHead(e *entry) {
	e.q, e.prev, e.next = q, nil, q.head
	if q.head != nil {
		q.head.prev = e
	} else {
		q.tail = e
	}
	q.head = e
	q.n++
	q.bytes += e.size
}

func (q *queue) remove(e *entry) {
	if e.prev != nil {
		e.prev.next = e.next
	} else {
		q.head = e.next
	}
	if e.next != nil {
		e.next.prev = e.prev
	} else {
		q.tail = e.prev
	}
	e.q, e.prev, e.next = nil, nil, nil
	q.n--
	q.bytes -= e.size
}

// ghost remembers the hashes of the latest entries evicted from the small
// queue, up to max of them, in a ring.
type ghost struct {
	ring []uint64       // grows up to max, then is overwritten in turn
	next int            // the slot written next once the ring is full
	at   map[uint64]int // hash → its slot in ring
	max  int
}

func (g *ghost) add(h uint64) {
	if _, ok := g.at[h]; ok {
		return
	}
	if len(g.ring) < g.max {
		g.at[h] = len(g.ring)
		g.ring = append(g.ring, h)
		return
	}
	if old := g.ring[g.next]; g.at[old] == g.next {
		delete(g.at, old)
	}
	g.ring[g.next], g.at[h] = h, g.next
	if g.next++; g.next == g.max {
		g.next = 0
	}
}

// take reports whether h was remembered, and forgets it.
func (g *ghost) take(h uint64) bool {
	if _, ok := g.at[h]; !ok {
		return false
	}
	delete(g.at, h)
	return true
}

// admitLocked links e, already in the index, into the policy (replacing
// old, the entry it displaced from the index, if any), evicting first
// what it takes for both bounds to hold with e: the totals, which readers
// see without the lock, never exceed them. e.size <= MaxBytes, so an
// empty cache has room.
func (c *Cache) admitLocked(e, old *entry) {
	if old != nil && old.q != nil {
		c.unlinkLocked(old)
	}
	now := c.now()
	c.purgeLocked(&c.small, now)
	c.purgeLocked(&c.main, now)
	for c.n.Load()+1 > int64(c.opts.MaxEntries) || c.bytes.Load()+e.size > c.opts.MaxBytes {
		c.evictLocked(now)
	}
	if c.ghost.take(e.hash) {
		c.main.pushHead(e)
	} else {
		c.small.pushHead(e)
	}
	c.bytes.Add(e.size)
	c.n.Add(1)
}

// purgeTails is how many expired entries a store evicts at most from each
// queue's tail before it admits its own: expired entries leave as new ones
// come, at a bounded cost per store, without a goroutine of the cache's.
const purgeTails = 2

// purgeLocked evicts up to purgeTails expired entries from q's tail. The
// queues are in order of arrival (the main queue's hit entries go round
// again), so the tail is where entries expire first when methods share a
// TTL.
func (c *Cache) purgeLocked(q *queue, now int64) {
	for range purgeTails {
		t := q.tail
		if t == nil || !t.expired(now) {
			return
		}
		q.remove(t)
		c.dropLocked(t)
	}
}

// evictLocked evicts one entry. The cache is not empty.
func (c *Cache) evictLocked(now int64) {
	if c.small.n > 0 && (c.main.n == 0 || c.small.n*10 >= c.opts.MaxEntries || c.small.bytes*10 >= c.opts.MaxBytes) {
		if c.evictSmallLocked(now) {
			return
		}
	}
	c.evictMainLocked(now)
}

// evictSmallLocked evicts the first entry of the small queue's tail that
// was not hit, moving those that were to the main queue. It reports false
// if it emptied the small queue that way without evicting.
func (c *Cache) evictSmallLocked(now int64) bool {
	for t := c.small.tail; t != nil; t = c.small.tail {
		c.small.remove(t)
		if t.freq.Load() > 0 && !t.expired(now) {
			t.freq.Store(0)
			c.main.pushHead(t)
			continue
		}
		if !t.expired(now) {
			c.ghost.add(t.hash)
		}
		c.dropLocked(t)
		return true
	}
	return false
}

// evictMainLocked evicts the first entry of the main queue's tail that was
// not hit, giving those that were another round. Readers may keep
// counters up, so after four rounds' worth of moves the tail goes anyway.
func (c *Cache) evictMainLocked(now int64) {
	for moves := 4 * c.main.n; ; moves-- {
		t := c.main.tail
		if f := t.freq.Load(); f > 0 && moves > 0 && !t.expired(now) {
			t.freq.Add(^uint32(0)) // readers only raise it: it stays >= 0
			c.main.remove(t)
			c.main.pushHead(t)
			continue
		}
		c.main.remove(t)
		c.dropLocked(t)
		return
	}
}

// dropLocked removes an evicted entry, already out of its queue, from the
// index and the totals.
func (c *Cache) dropLocked(e *entry) {
	c.forgetLocked(e)
	c.evictions.Add(1)
}

// unlinkLocked removes e from its queue and the totals, not from the index.
func (c *Cache) unlinkLocked(e *entry) {
	e.q.remove(e)
	c.bytes.Add(-e.size)
	c.n.Add(-1)
}

// forgetLocked removes e, already out of its queue, from the index and the
// totals.
func (c *Cache) forgetLocked(e *entry) {
	sh := c.shard(e.hash)
	sh.mu.Lock()
	if sh.entries[e.hash] == e {
		delete(sh.entries, e.hash)
	}
	sh.mu.Unlock()
	c.bytes.Add(-e.size)
	c.n.Add(-1)
}

// removeLocked removes a stored entry from its queue, the index and the
// totals (an invalidation: not counted as an eviction).
func (c *Cache) removeLocked(e *entry) {
	e.q.remove(e)
	c.forgetLocked(e)
}
