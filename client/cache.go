package client

import (
	"container/list"
	"sync"
	"time"

	"github.com/mcpwire/mcpwire/codec"
)

// resultCache keeps results of the methods it names for a TTL, bounded by
// entries and bytes, the least recently used going first. It is safe for
// concurrent use.
type resultCache struct {
	methods    map[string]bool
	ttl        time.Duration
	maxEntries int
	maxBytes   int

	mu    sync.Mutex
	m     map[string]*list.Element // key → element of lru holding a *cacheEntry
	lru   list.List                // front: most recently used
	bytes int                      // of the keys and results held
}

type cacheEntry struct {
	key     string
	result  codec.Raw
	expires time.Time
}

func newResultCache(o *CacheOptions) *resultCache {
	rc := &resultCache{
		methods: make(map[string]bool, len(o.Methods)), ttl: o.TTL,
		maxEntries: o.MaxEntries, maxBytes: o.MaxBytes,
		m: make(map[string]*list.Element),
	}
	for _, m := range o.Methods {
		rc.methods[m] = true
	}
	return rc
}

// key returns the cache key of a call of method with params (raw JSON, nil
// for none), and whether method is cached at all.
func (rc *resultCache) key(method string, params codec.Raw) (string, bool) {
	if rc == nil || !rc.methods[method] {
		return "", false
	}
	k := append([]byte(method), 0)
	if params != nil {
		var err error
		if k, err = codec.AppendCanonical(k, params); err != nil {
			return "", false // not valid JSON: the server will say so
		}
	}
	return string(k), true
}

// get returns the result kept for key: read-only, shared.
func (rc *resultCache) get(key string) (codec.Raw, bool) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	el, ok := rc.m[key]
	if !ok {
		return nil, false
	}
	e := el.Value.(*cacheEntry)
	if !time.Now().Before(e.expires) {
		rc.removeLocked(el)
		return nil, false
	}
	rc.lru.MoveToFront(el)
	return e.result, true
}

// put keeps result (which the cache then owns) for key.
func (rc *resultCache) put(key string, result codec.Raw) {
	size := len(key) + len(result)
	if size > rc.maxBytes {
		return
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if el, ok := rc.m[key]; ok {
		rc.removeLocked(el)
	}
	rc.m[key] = rc.lru.PushFront(&cacheEntry{key: key, result: result, expires: time.Now().Add(rc.ttl)})
	rc.bytes += size
	for len(rc.m) > rc.maxEntries || rc.bytes > rc.maxBytes {
		rc.removeLocked(rc.lru.Back())
	}
}

func (rc *resultCache) removeLocked(el *list.Element) {
	e := rc.lru.Remove(el).(*cacheEntry)
	delete(rc.m, e.key)
	rc.bytes -= len(e.key) + len(e.result)
}
