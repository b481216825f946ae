package client

import (
	"context"

	"github.com/mcpwire/mcpwire/cache"
	"github.com/mcpwire/mcpwire/codec"
)

// resultCache keeps the results of the methods it names in a cache.Cache
// (the one the server side uses: bounded by entries and bytes, S3-FIFO
// eviction), for a TTL. Identical concurrent calls of a cached method
// share one call to the server (cache.Method.Do). Safe for concurrent use.
type resultCache struct {
	methods map[string]bool
	m       *cache.Method
}

// newResultCache returns the cache CacheOptions o (defaults applied)
// describe.
func newResultCache(o *CacheOptions) *resultCache {
	rc := &resultCache{
		methods: make(map[string]bool, len(o.Methods)),
		m: cache.New(&cache.Options{
			MaxEntries:    o.MaxEntries,
			MaxBytes:      int64(o.MaxBytes),
			MaxEntryBytes: int64(o.MaxBytes), // only a result larger than all of it is not kept
		}).Method(o.TTL),
	}
	for _, m := range o.Methods {
		rc.methods[m] = true
	}
	return rc
}

// caches reports whether calls of method go through the cache.
func (rc *resultCache) caches(method string) bool { return rc != nil && rc.methods[method] }

// do returns the result of method with params (raw JSON, nil for none):
// the stored one, counted as a hit in st, or the one call returns, which
// identical calls made meanwhile share (a miss). The result is read-only.
func (rc *resultCache) do(ctx context.Context, st *counters, method string, params codec.Raw, call func() (codec.Raw, error)) (codec.Raw, error) {
	if raw, ok := rc.m.Lookup(method, params); ok {
		st.cacheHits.Add(1)
		return raw, nil
	}
	st.cacheMisses.Add(1)
	raw, err := rc.m.Do(ctx, method, params, func() ([]byte, error) { return call() })
	return raw, err
}
