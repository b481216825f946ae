package cache

import (
	"context"
	"time"
)

// A second tier is a store of encoded results that several instances of
// a server share (redisstore's, in Redis), behind each instance's Cache:
// a local miss asks it before running the handler, so that a result
// computed on one instance serves them all, and an invalidation on one
// instance reaches every instance.
//
// The Cache asks its Tier only from the leader of a local fill (Do and
// DoFor on a miss), never from Lookup: a hit on the connection's reader
// never leaves the process. A Cache without a Tier works as before, at
// the same cost.

// Tier is a second tier behind a Cache (Options.Tier). Implementations
// must be safe for concurrent use. Keys are given as the method name and
// the canonical params (codec.Canonicalizer), the same bytes on every
// instance for the same call.
type Tier interface {
	// Attach is called once, by New, with the Cache the tier serves:
	// the tier applies there the invalidations made on other instances.
	Attach(local Local)
	// Fetch returns the result of the key: the one the tier stores, or
	// the one fill returns, which it stores for ttl. Identical calls on
	// several instances run fill once where the tier can arrange it; a
	// tier that cannot reach its store runs fill itself and returns its
	// outcome (an outage is never the caller's error). The time to live
	// returned and fill's follow the Cache's convention: zero, no expiry;
	// negative, not stored (fill says so for results the Cache would not
	// keep: errors, results too large or fresh for no time). Fetch
	// returns ctx's error if ctx ends while it waits for another
	// instance's fill, and fill's outcome when it runs fill.
	Fetch(ctx context.Context, method string, params []byte, fill func() ([]byte, time.Duration, error)) ([]byte, time.Duration, error)
	// Invalidate, InvalidateKey and InvalidateAll remove from the tier,
	// and from the Caches of the other instances, what the Cache's
	// methods of the same names remove, and stop the fills under way
	// for those keys from storing their results. The Cache calls them
	// before it invalidates its own entries.
	Invalidate(method string)
	InvalidateKey(method string, params []byte)
	InvalidateAll()
}

// Local is the in-process tier of a Cache, as its Tier sees it: its
// methods invalidate this instance's entries and fills only, without
// calling the Tier back. Safe for concurrent use.
type Local interface {
	Invalidate(method string)
	// InvalidateKey takes canonical params.
	InvalidateKey(method string, params []byte)
	InvalidateAll()
}

// local is a Cache as its Tier's Local.
type local struct{ c *Cache }

func (l local) Invalidate(method string)                   { l.c.invalidate(method) }
func (l local) InvalidateKey(method string, params []byte) { l.c.invalidateKey(method, params) }
func (l local) InvalidateAll()                             { l.c.invalidateAll() }

// tiered returns run behind the tier: the leader of the flight f asks the
// tier, which runs run when it has no result. A result the local tier
// would not keep is marked not to be stored in the second either.
func (c *Cache) tiered(ctx context.Context, f *flight, run func() ([]byte, time.Duration, error)) func() ([]byte, time.Duration, error) {
	return func() ([]byte, time.Duration, error) {
		return c.opts.Tier.Fetch(ctx, f.method, f.params, func() ([]byte, time.Duration, error) {
			res, ttl, err := run()
			if err != nil || !c.storable(f, res) {
				ttl = -1
			}
			return res, ttl, err
		})
	}
}
