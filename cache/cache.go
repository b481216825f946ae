package cache

import (
	"hash/maphash"
	"sync"
	"sync/atomic"
	"time"
)

// Cache stores encoded results of repeatable calls, keyed by method and
// canonical params; see the package documentation. Safe for concurrent
// use. Create one with New; a Cache starts no goroutine and needs no
// closing.
type Cache struct {
	opts       Options
	seed       maphash.Seed
	methodSeed maphash.Seed
	epoch      time.Time // the clock: time since epoch, monotonic
	scratch    sync.Pool // *scratch

	shards [numShards]shard

	mu    sync.Mutex // the policy: queues, ghost, and every change to the index
	small queue
	main  queue
	ghost ghost

	n         atomic.Int64 // entries stored; written under mu
	bytes     atomic.Int64 // their sizes; written under mu
	evictions atomic.Uint64
}

// New returns an empty cache bounded by opts (nil: the defaults).
func New(opts *Options) *Cache {
	c := &Cache{
		opts:       opts.withDefaults(),
		seed:       maphash.MakeSeed(),
		methodSeed: maphash.MakeSeed(),
		epoch:      time.Now(),
	}
	c.scratch.New = func() any { return new(scratch) }
	c.ghost = ghost{at: make(map[uint64]int), max: c.opts.MaxEntries}
	for i := range c.shards {
		c.shards[i].entries = make(map[uint64]*entry)
		c.shards[i].flights = make(map[uint64]*flight)
	}
	if c.opts.Tier != nil {
		c.opts.Tier.Attach(local{c})
	}
	return c
}

// now reads the cache's clock.
func (c *Cache) now() int64 { return int64(time.Since(c.epoch)) }

// Method returns the cache as the methods given it in
// router.MethodOptions.Cache see it: entries they fill live for ttl (zero
// or negative: until evicted or invalidated). One Method may serve several
// router methods; their entries are told apart by the method name the
// router passes.
func (c *Cache) Method(ttl time.Duration) *Method {
	return &Method{c: c, ttl: ttl}
}

// Method is a Cache with the time to live of the entries it fills. It
// implements router.Cache. Safe for concurrent use.
type Method struct {
	c   *Cache
	ttl time.Duration
}

// Lookup returns the stored result for method and params (a valid JSON
// array or object, or empty for absent params): the bytes to answer with,
// never modified afterwards. It takes no lock but a shard's read lock,
// never waits for a fill, and does not allocate. A hit is counted; a miss
// is not (Do counts it, if the call goes on to the handler).
func (m *Method) Lookup(method string, params []byte) ([]byte, bool) {
	c := m.c
	s := c.getScratch()
	h, ok := c.key(s, method, params)
	var res []byte
	if ok {
		res, ok = c.shard(h).get(c, h, method, s.buf)
	}
	c.putScratch(s)
	return res, ok
}

// Hits returns the number of calls answered with a stored result.
func (c *Cache) Hits() uint64 {
	var n uint64
	for i := range c.shards {
		n += c.shards[i].hits.Load()
	}
	return n
}

// Misses returns the number of calls (Do) that found no stored result and
// ran a fill or waited for one.
func (c *Cache) Misses() uint64 {
	var n uint64
	for i := range c.shards {
		n += c.shards[i].misses.Load()
	}
	return n
}

// Evictions returns the number of entries removed to respect the bounds
// or because they had expired; invalidations are not counted.
func (c *Cache) Evictions() uint64 { return c.evictions.Load() }

// Bytes returns what the stored entries count toward Options.MaxBytes.
func (c *Cache) Bytes() int64 { return c.bytes.Load() }

// Len returns the number of stored entries, expired ones not yet evicted
// included.
func (c *Cache) Len() int { return int(c.n.Load()) }
