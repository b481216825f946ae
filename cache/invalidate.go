package cache

// Invalidation removes stored entries and unregisters the fills under way
// for the keys it covers, so that a fill that started before it cannot
// store its (possibly stale) result after it: such a fill still answers
// the calls waiting for it, and the next call runs a fill of its own. It
// takes the policy's lock and each shard's in turn; hits on other shards
// go on meanwhile.

// Invalidate removes every entry of method and stops the fills of method
// under way from storing their results; with a Tier, on every instance
// (the tier first, then this one).
func (c *Cache) Invalidate(method string) {
	if c.opts.Tier != nil {
		c.opts.Tier.Invalidate(method)
	}
	c.invalidate(method)
}

func (c *Cache) invalidate(method string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := range c.shards {
		sh := &c.shards[i]
		sh.mu.Lock()
		for h, f := range sh.flights {
			if f.method == method {
				delete(sh.flights, h)
			}
		}
		sh.mu.Unlock()
	}
	for _, q := range [...]*queue{&c.small, &c.main} {
		for e := q.head; e != nil; {
			next := e.next
			if e.method == method {
				c.removeLocked(e)
			}
			e = next
		}
	}
}

// InvalidateKey removes the entry of method and params (spelled any way
// that has the same canonical form) and stops a fill of it under way from
// storing its result; with a Tier, on every instance.
func (c *Cache) InvalidateKey(method string, params []byte) {
	s := c.getScratch()
	defer c.putScratch(s)
	h, ok := c.key(s, method, params)
	if !ok {
		return // never cached
	}
	if c.opts.Tier != nil {
		c.opts.Tier.InvalidateKey(method, s.buf)
	}
	c.invalidateKeyHashed(h, method, s.buf)
}

// invalidateKey is InvalidateKey on this instance only.
func (c *Cache) invalidateKey(method string, params []byte) {
	s := c.getScratch()
	defer c.putScratch(s)
	if h, ok := c.key(s, method, params); ok {
		c.invalidateKeyHashed(h, method, s.buf)
	}
}

// invalidateKeyHashed removes the key (h, method, canonical params).
func (c *Cache) invalidateKeyHashed(h uint64, method string, params []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	sh := c.shard(h)
	sh.mu.Lock()
	if f := sh.flights[h]; f != nil && f.matches(method, params) {
		delete(sh.flights, h)
	}
	e := sh.entries[h]
	sh.mu.Unlock()
	if e != nil && e.matches(method, params) {
		c.removeLocked(e)
	}
}

// InvalidateAll removes every entry and stops every fill under way from
// storing its result; with a Tier, on every instance.
func (c *Cache) InvalidateAll() {
	if c.opts.Tier != nil {
		c.opts.Tier.InvalidateAll()
	}
	c.invalidateAll()
}

func (c *Cache) invalidateAll() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := range c.shards {
		sh := &c.shards[i]
		sh.mu.Lock()
		clear(sh.flights)
		clear(sh.entries)
		sh.mu.Unlock()
	}
	c.small, c.main = queue{}, queue{}
	c.n.Store(0)
	c.bytes.Store(0)
}
