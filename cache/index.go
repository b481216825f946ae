package cache

import (
	"sync"
	"sync/atomic"
)

// The index maps a key's hash to its entry, and to the fill under way for
// it, in shards, so that hits on different keys seldom touch the same
// lock. A shard's lock is taken for reading by hits, for writing by Do to
// join or start a fill, and by the policy (always holding Cache.mu first)
// to add or remove entries. Each shard counts its own hits and misses, on
// the cache line its lock already brings in.

const numShards = 64

type shard struct {
	mu      sync.RWMutex
	entries map[uint64]*entry  // guarded by mu; written under Cache.mu too
	flights map[uint64]*flight // guarded by mu
	hits    atomic.Uint64
	misses  atomic.Uint64
	_       [8]byte // to 64 bytes (a test checks): no false sharing between shards
}

func (c *Cache) shard(h uint64) *shard { return &c.shards[h%numShards] }

// get returns the stored, unexpired result for the key (h, method, params)
// and counts the hit.
func (sh *shard) get(c *Cache, h uint64, method string, params []byte) ([]byte, bool) {
	sh.mu.RLock()
	e := sh.findLocked(c, h, method, params)
	sh.mu.RUnlock()
	if e == nil {
		return nil, false
	}
	sh.hits.Add(1)
	return e.result, true
}

// findLocked returns the live entry of the key, touched, or nil. sh.mu is
// held (for reading at least).
func (sh *shard) findLocked(c *Cache, h uint64, method string, params []byte) *entry {
	e := sh.entries[h]
	if e == nil || !e.matches(method, params) || e.expires != noExpiry && e.expired(c.now()) {
		return nil
	}
	e.touch()
	return e
}
