// Package cache is the response cache: it answers repeated calls of the
// methods that opt in from stored, already encoded results, and folds
// identical concurrent calls into one run of the handler.
//
// # Use
//
// A method opts in with router.MethodOptions.Cache, given a Method: the
// cache with the time to live of that method's entries.
//
//	c := cache.New(&cache.Options{MaxEntries: 10_000, MaxBytes: 64 << 20})
//	r.Register("tools/list", h, &router.MethodOptions{Cache: c.Method(time.Minute)})
//
// The router makes the cache the method's interceptor, so a connection
// asks it on its reading goroutine, before admission and before any
// hand-off to the pool: a hit takes no worker and no in-flight slot, and
// is answered with the new request's id (echoed byte for byte) followed
// by the stored bytes, with no encoding and no allocation. A miss goes on
// to the pool as any request does; there the handler runs through Do, its
// result is encoded once, stored, and answered verbatim. Notifications
// bypass the cache.
//
// # Keys
//
// An entry's key is the method name and the canonical form of the params
// (codec.Canonicalizer), computed from the validated bytes without
// decoding them into Go values: object members in another order, other
// white space or other spellings of the same string give the same key;
// elements of an array in another order, or numbers spelled differently
// (1 and 1.0), do not. Absent params and {} are different keys. Params
// nested deeper than codec.DefaultMaxDepth are not cached.
//
// The key holds nothing else: not the session, not the caller. Cache only
// methods whose result depends on nothing but their name and params. A
// hit is answered through the router's middleware
// (router.Entry.Intercepted), so authentication, authorisation and rate
// limits in middleware apply to hits as to misses; the cache is asked
// first, so Hits counts a hit the middleware then refused.
//
// # Single flight
//
// Identical calls (same key) arriving while a fill for the key runs wait
// for it and get its outcome, result or error. A waiting call whose
// context ends returns its context's error. If the fill fails because
// the context of the call that runs it ended (the peer cancelled it, or
// it timed out), the others do not inherit that failure: one of them runs
// the handler anew. If the fill panics, the panic goes on where it
// happened (the connection answers that call -32603) and the others get
// ErrFillPanicked.
//
// Errors are never stored: the next identical call runs the handler again.
//
// # Bounds and eviction
//
// A Cache holds at most Options.MaxEntries entries and Options.MaxBytes
// bytes, an entry counting its encoded result, its key and EntryOverhead.
// Room is made before an entry is added, under the policy's lock, so
// Len and Bytes never exceed the bounds, even for a moment. A result
// larger than Options.MaxEntryBytes is answered but not stored. Besides
// the entries, the ghost queue holds up to MaxEntries hashes (8 bytes
// each, plus a map slot), not counted in Bytes.
//
// Eviction is S3-FIFO (Yang et al., SOSP 2023): new entries enter a small
// FIFO queue; those hit while there move on to the main queue when they
// reach its tail, the others leave (their hashes remembered in a ghost
// queue, so that a key asked again soon goes straight to the main queue);
// the main queue gives each hit entry another round. A burst of calls
// made once each therefore passes through the small queue without
// flushing the entries in use. A hit only bumps a counter: readers never
// take the policy's lock.
//
// Each Method has its own time to live, counted from when the entry was
// stored (zero: no expiry); a result filled through DoFor has the one its
// fill returned instead (zero or less: answered but not stored), for
// results that carry their own freshness, as MCP's ttlMs. An expired
// entry is never answered; it is
// replaced by the next fill of its key, or evicted when it reaches a
// queue's tail: each store evicts up to two expired entries from each tail,
// so expired entries leave while new ones come. It counts toward Len and
// Bytes until then.
//
// # Invalidation
//
// Invalidate removes a method's entries, InvalidateKey one entry (its
// params spelled any way), InvalidateAll every entry; the MCP layer calls
// them when its lists change. An invalidation also stops the fills under
// way for the keys it covers from storing their results (they began
// before it, so their results may be stale): they still answer the calls
// waiting for them, and a call that arrives after the invalidation runs
// a fill of its own.
//
// # Second tier
//
// Several instances of a server can share their results through a
// second tier (Options.Tier; redisstore.CacheTier keeps it in Redis).
// Lookup never asks it: a hit on the connection's reader stays in the
// process. On a local miss, the leader of the local fill asks the tier,
// with the canonical params: a result stored there is answered and kept
// locally for what remains of its time to live; otherwise the tier runs
// the fill, on one instance at a time for identical calls where it can,
// and keeps its result for the fill's time to live, unless the local
// tier would not keep it either (an error, a result larger than
// Options.MaxEntryBytes, a time to live of zero or less). Invalidate,
// InvalidateKey and InvalidateAll go to the tier first, which passes
// them on to every other instance (through Local, without coming back),
// then apply here. A tier that cannot reach its store runs the fill on
// this instance: the local tier goes on answering alone.
//
// # Counters
//
// Hits (calls answered from stored results), Misses (calls that went on
// to run a fill or wait for one), Evictions (entries removed for room or
// because they expired; invalidations are not counted), Bytes and Len
// are plain methods reading atomic counters, for a metrics collector to
// read whenever it likes; the hot path has no hooks.
//
// # Concurrency
//
// A Cache is safe for concurrent use and starts no goroutine. The index
// is split in 64 shards, each under a read-write lock: a hit takes one
// shard's read lock; starting or joining a fill takes its write lock;
// storing, evicting and invalidating take the policy's lock, then shard
// locks one at a time. Stored bytes are never modified, so a caller may
// use a result after the lock is gone, and after its entry is evicted.
//
// # Glossary
//
//   - fill: one run of the handler for a key on a miss, whose result the
//     cache stores if it may.
//   - flight: a fill under way, which identical calls join instead of
//     running the handler again (single flight; the call that runs the fill
//     leads, the others follow).
//   - tier: the second tier, shared by instances; the Cache itself is the
//     local (first) tier.
//   - small, main and ghost queue: S3-FIFO's three queues, as above.
//
// This package imports codec only.
package cache
