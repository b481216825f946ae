package redisstore

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpwire/mcpwire/cache"
	"github.com/redis/go-redis/v9"
)

// The response cache's second tier: encoded results in Redis, shared by
// every instance's cache.Cache, with a short lock per key so that one
// instance runs a fill while the others wait for its result.
//
// Keys (keys.md): an entry and its fill's lock are named by the two
// generations in force (every method's and its own) and a hash of the
// method and canonical params. Invalidating a method or everything
// writes a new random generation, so that the old entries are no longer
// found (they expire by themselves) and a fill under the old one does not
// store its result: the script that stores checks the generations and
// that the caller still holds the lock. InvalidateKey deletes the entry
// and the lock, which stops the fill that held it from storing.
//
// Each instance keeps the generations it last saw; every script checks
// them and answers the current ones when they differ, and the instance
// then drops its own entries of what changed (it missed the bus message
// that said so) and asks again.

// Defaults of CacheTierOptions.
const (
	DefaultCacheMaxTTL        = time.Hour
	DefaultCacheLockTTL       = 5 * time.Second
	DefaultCacheMaxWait       = 30 * time.Second
	DefaultCacheRetryInterval = time.Second
)

// CacheTierOptions configure a CacheTier. A nil *CacheTierOptions gives
// the defaults; CacheTier copies the value.
type CacheTierOptions struct {
	// MaxTTL is the longest an entry lives in Redis (default
	// DefaultCacheMaxTTL): a result that lives until evicted in the
	// local cache lives this long in Redis, a longer time to live is cut
	// to it.
	MaxTTL time.Duration
	// LockTTL is how long a fill's lock lives (default
	// DefaultCacheLockTTL). The instance that holds it renews it every
	// third of LockTTL while the fill runs and the fill's context is
	// live; an instance that dies lets it expire, and the next caller
	// fills.
	LockTTL time.Duration
	// MaxWait bounds how long a call whose context has no deadline
	// waits for another instance's fill (default DefaultCacheMaxWait);
	// then it runs its own.
	MaxWait time.Duration
	// RetryInterval is how long the tier leaves Redis alone after a
	// failed call (default DefaultCacheRetryInterval): meanwhile every
	// local miss runs its fill on this instance at once.
	RetryInterval time.Duration
	// Logger receives the outages and recoveries (nil: slog.Default()).
	Logger *slog.Logger
}

// CacheTier is the response cache's second tier in Redis: give it to
// cache.Options.Tier. It stores encoded results (bytes, as the cache
// does) under keys with a time to live, and runs one fill at a time per
// key across instances. Safe for concurrent use; it serves one Cache.
//
// When Redis cannot be reached, nothing fails: the in-process cache
// still answers its hits, a miss runs its fill on this instance (no
// single flight across instances) and is stored locally, invalidations
// apply locally; the errors are logged, once per outage. For
// RetryInterval after a failure the tier does not try Redis at all. The
// first call that succeeds again ends the outage: the instance drops its
// local entries (invalidations made meanwhile elsewhere did not reach
// it) and, if one of its own invalidations did not reach Redis, it
// invalidates everything there too. Nothing needs restarting.
type CacheTier struct {
	s       *Store
	o       CacheTierOptions
	log     *slog.Logger
	channel string
	genAll  string // the key of every method's generation

	local cache.Local // set once by Attach; noLocal before

	subMu      sync.Mutex  // held while subscribing
	unsub      func()      // guarded by subMu; nil when not subscribed
	closed     bool        // guarded by subMu
	subscribed atomic.Bool // subscribed, or closed: nothing to try

	mu      sync.Mutex
	all     string            // every method's generation, as last seen
	gens    map[string]string // a method's generation, as last seen
	waiters map[string]map[*waiter]struct{}
	// unkeptKeys are the keys whose last fill here was not for keeping,
	// until when they skip Redis (unix nanoseconds); see unkept.
	unkeptKeys map[string]int64

	downUntil atomic.Int64 // unix nanoseconds before which Redis is left alone
	down      atomic.Bool  // a call failed and none has succeeded since
	lost      atomic.Bool  // an invalidation did not reach Redis
}

// CacheTier returns the store's second tier for a cache.Cache:
//
//	tier := st.CacheTier(nil)
//	c := cache.New(&cache.Options{Tier: tier})
func (s *Store) CacheTier(opts *CacheTierOptions) *CacheTier {
	var o CacheTierOptions
	if opts != nil {
		o = *opts
	}
	if o.MaxTTL <= 0 {
		o.MaxTTL = DefaultCacheMaxTTL
	}
	if o.LockTTL <= 0 {
		o.LockTTL = DefaultCacheLockTTL
	}
	if o.MaxWait <= 0 {
		o.MaxWait = DefaultCacheMaxWait
	}
	if o.RetryInterval <= 0 {
		o.RetryInterval = DefaultCacheRetryInterval
	}
	log := o.Logger
	if log == nil {
		log = slog.Default()
	}
	return &CacheTier{
		s: s, o: o, log: log,
		channel: s.channel("cache"),
		genAll:  s.key("cachegen", "all"),
		local:   noLocal{},
		all:     noGen,
		gens:    map[string]string{},
		waiters: map[string]map[*waiter]struct{}{},

		unkeptKeys: map[string]int64{},
	}
}

// Attach implements cache.Tier: cache.New calls it with the Cache the
// tier serves. It subscribes to the other instances' invalidations; if
// Redis cannot be reached now, it subscribes when it can. It panics if
// the tier already serves a Cache.
func (t *CacheTier) Attach(local cache.Local) {
	if _, free := t.local.(noLocal); !free {
		panic("redisstore: a CacheTier serves one cache.Cache")
	}
	t.local = local
	t.subscribe()
}

// Close stops the tier's subscription. The Cache goes on, without
// hearing the other instances' invalidations.
func (t *CacheTier) Close() {
	t.subMu.Lock()
	defer t.subMu.Unlock()
	t.closed = true
	t.subscribed.Store(true)
	if t.unsub != nil {
		t.unsub()
		t.unsub = nil
	}
}

// noLocal is the Local of a tier not attached to a Cache yet.
type noLocal struct{}

func (noLocal) Invalidate(string)            {}
func (noLocal) InvalidateKey(string, []byte) {}
func (noLocal) InvalidateAll()               {}

// subscribe listens to the cache's channel unless it does already (or
// the tier or its store is closed).
func (t *CacheTier) subscribe() {
	t.subMu.Lock()
	defer t.subMu.Unlock()
	if t.unsub != nil || t.closed {
		return
	}
	unsub, err := t.s.subscribe(context.Background(), t.channel, t.onMessage)
	switch {
	case errors.Is(err, redis.ErrClosed):
		t.closed = true
		t.subscribed.Store(true)
	case err != nil:
		// Logged, not counted as an outage: the calls say whether Redis
		// answers, and the next one that succeeds tries again.
		t.log.Debug("redisstore: the cache's second tier cannot subscribe to invalidations yet",
			"instance", t.s.instance, "error", err)
	default:
		t.unsub = unsub
		t.subscribed.Store(true)
	}
}

// noGen is the generation of a method never invalidated (or whose
// generation expired).
const noGen = "0"

// genKey returns the key of a method's generation.
func (t *CacheTier) genKey(method string) string { return t.s.key("cachegen", "m", method) }

// genTTL is how long a generation lives: longer than any entry, so that
// when it expires (and reads as noGen again) no entry written under
// noGen before it is left.
func (t *CacheTier) genTTL() time.Duration { return 2 * t.o.MaxTTL }

// generations returns the generations of method as last seen.
func (t *CacheTier) generations(method string) (all, m string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	m, ok := t.gens[method]
	if !ok {
		m = noGen
	}
	return t.all, m
}

// learn records the generations a script found, and drops this
// instance's entries that they make stale: an invalidation whose message
// did not reach it.
func (t *CacheTier) learn(method, all, m string) {
	t.mu.Lock()
	oldAll, oldM := t.all, t.gens[method]
	if oldM == "" {
		oldM = noGen
	}
	t.all, t.gens[method] = all, m
	t.mu.Unlock()
	switch {
	case oldAll != all:
		t.local.InvalidateAll()
	case oldM != m:
		t.local.Invalidate(method)
	}
}

// cacheHash names a key in Redis: the first 128 bits of SHA-256 over the
// method's length, the method and the canonical params.
func cacheHash(method string, params []byte) string {
	h := sha256.New()
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(method)))
	h.Write(n[:])
	h.Write([]byte(method))
	h.Write(params)
	var sum [sha256.Size]byte
	return hex.EncodeToString(h.Sum(sum[:0])[:16])
}

// keys returns the entry's and the lock's keys under the generations.
func (t *CacheTier) keys(all, m, h string) (entry, lock string) {
	g := all + "." + m
	return t.s.key("cache", g, h), t.s.key("cachelock", g, h)
}

// cacheToken returns a random value: a lock's owner, a generation.
func cacheToken() string {
	var b [12]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	return hex.EncodeToString(b[:])
}

// usable reports whether the tier may try Redis now.
func (t *CacheTier) usable() bool {
	u := t.downUntil.Load()
	return u == 0 || time.Now().UnixNano() >= u
}

// failed records a failed call: Redis is left alone for RetryInterval,
// and the outage is logged once.
func (t *CacheTier) failed(err error) {
	t.downUntil.Store(time.Now().Add(t.o.RetryInterval).UnixNano())
	if !t.down.Swap(true) {
		t.log.Warn("redisstore: the cache's second tier is unreachable; this instance serves its cache alone until it is back",
			"instance", t.s.instance, "error", err)
	}
}

// ok records a call that succeeded, and ends an outage: the local
// entries go (invalidations made meanwhile did not reach this instance),
// and so does everything in Redis if one of this instance's
// invalidations did not reach it.
func (t *CacheTier) ok() {
	if !t.down.Load() && t.subscribed.Load() {
		return
	}
	if !t.subscribed.Load() {
		t.subscribe()
	}
	if !t.down.Swap(false) {
		return
	}
	t.downUntil.Store(0)
	t.log.Info("redisstore: the cache's second tier is back", "instance", t.s.instance)
	t.local.InvalidateAll()
	if t.lost.Swap(false) {
		t.InvalidateAll()
	}
}
