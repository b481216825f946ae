package cache

import (
	"bytes"
	"context"
	"errors"
	"time"
)

// Single flight: the first call of a key that finds nothing stored
// registers a flight in the key's shard and runs its fill (the leader);
// identical calls arriving meanwhile join the flight and wait for its
// outcome (the followers). The leader stores the result as it unregisters
// the flight, both under the shard's lock, so a call sees either the
// flight or the entry, never neither. An invalidation unregisters the
// flights it covers: their leaders then store nothing, and later calls
// start fills of their own.

// ErrFillPanicked is what the followers of a fill that panicked get (the
// leader's goroutine goes on panicking).
var ErrFillPanicked = errors.New("cache: the call that was computing this result panicked")

// flight is one fill under way.
type flight struct {
	method string
	params []byte // canonical, owned: becomes the entry's key
	done   chan struct{}

	// Set by the leader before done is closed; read-only afterwards.
	result []byte
	err    error
	retry  bool // the leader's own context ended: followers try again
}

// Do returns the result for method and params: the stored one, or the one
// fill returns. fill runs at most once for identical concurrent calls; the
// others wait for it (or for their ctx: then they return ctx's error).
// Its result is stored unless it returns an error, is larger than
// Options.MaxEntryBytes, or an invalidation covering the key happens
// before it returns. fill must return bytes it will never modify, valid
// JSON to answer with; the cache keeps them.
//
// If the leader fails because its own context ended, the followers whose
// contexts are still live do not take that error: one of them runs its
// own fill. If fill panics, the panic goes on in the leader's goroutine
// and the followers get ErrFillPanicked.
func (m *Method) Do(ctx context.Context, method string, params []byte, fill func() ([]byte, error)) ([]byte, error) {
	return m.do(ctx, method, params, fill, nil)
}

// DoFor is Do for results that say themselves how long they stay fresh
// (an MCP result's ttlMs, say): fill returns the result and its time to
// live, which replaces the Method's for that entry. A result whose time
// to live is zero or negative is answered, to the callers waiting for it
// too, but not stored. Otherwise DoFor is Do.
func (m *Method) DoFor(ctx context.Context, method string, params []byte, fill func() ([]byte, time.Duration, error)) ([]byte, error) {
	return m.do(ctx, method, params, nil, fill)
}

// do is Do (fill) or DoFor (fillFor): exactly one of them is set.
func (m *Method) do(ctx context.Context, method string, params []byte,
	fill func() ([]byte, error), fillFor func() ([]byte, time.Duration, error)) ([]byte, error) {
	c := m.c
	// run fills, and says how long its result lives: zero, until evicted;
	// negative, not stored at all.
	run := func() ([]byte, time.Duration, error) {
		if fill != nil {
			res, err := fill()
			return res, max(m.ttl, 0), err
		}
		res, ttl, err := fillFor()
		if ttl <= 0 {
			ttl = -1
		}
		return res, ttl, err
	}
	counted := false
	for {
		s := c.getScratch()
		h, ok := c.key(s, method, params)
		if !ok {
			c.putScratch(s)
			c.shard(0).misses.Add(1)
			res, _, err := run() // a key the cache cannot compute: not cached
			return res, err
		}
		sh := c.shard(h)
		if res, ok := sh.get(c, h, method, s.buf); ok {
			c.putScratch(s)
			return res, nil
		}
		f, lead := sh.join(c, h, method, s.buf)
		c.putScratch(s)
		if f == nil && !lead {
			continue // stored since get looked: take it as a hit
		}
		if !counted {
			counted = true
			sh.misses.Add(1)
		}
		switch {
		case f == nil: // a different key with the same hash is in flight
			res, _, err := run()
			return res, err
		case lead && c.opts.Tier != nil:
			return c.lead(ctx, sh, h, f, c.tiered(ctx, f, run))
		case lead:
			return c.lead(ctx, sh, h, f, run)
		}
		select {
		case <-f.done:
			if f.retry && ctx.Err() == nil {
				continue
			}
			return f.result, f.err
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

func (f *flight) matches(method string, params []byte) bool {
	return f.method == method && bytes.Equal(f.params, params)
}

// join, under the shard's lock, finds what the key has: a stored entry
// (nil, false), a flight to follow (f, false), or nothing, in which case
// it registers a new flight for the caller to lead (f, true). It returns
// (nil, true) when a flight of another key holds the hash.
func (sh *shard) join(c *Cache, h uint64, method string, params []byte) (*flight, bool) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if sh.findLocked(c, h, method, params) != nil {
		return nil, false
	}
	if f := sh.flights[h]; f != nil {
		if f.matches(method, params) {
			return f, false
		}
		return nil, true
	}
	f := &flight{method: method, params: bytes.Clone(params), done: make(chan struct{})}
	sh.flights[h] = f
	return f, true
}

// lead runs fill for the flight f, stores what it returns if it may, and
// hands the outcome to the followers.
func (c *Cache) lead(ctx context.Context, sh *shard, h uint64, f *flight, fill func() ([]byte, time.Duration, error)) ([]byte, error) {
	finished := false
	defer func() {
		if !finished { // fill panicked: release the followers, let it go on
			f.err = ErrFillPanicked
			sh.mu.Lock()
			sh.unregisterLocked(h, f)
			sh.mu.Unlock()
			close(f.done)
		}
	}()
	res, ttl, err := fill()
	finished = true
	f.result, f.err = res, err
	f.retry = err != nil && ctx.Err() != nil
	if err == nil && ttl >= 0 && c.storable(f, res) {
		c.store(ttl, sh, h, f, res)
	} else {
		sh.mu.Lock()
		sh.unregisterLocked(h, f)
		sh.mu.Unlock()
	}
	close(f.done)
	return res, err
}

func (sh *shard) unregisterLocked(h uint64, f *flight) bool {
	if sh.flights[h] != f {
		return false // an invalidation took it out
	}
	delete(sh.flights, h)
	return true
}

func (c *Cache) storable(f *flight, res []byte) bool {
	return entrySize(f, res) <= c.opts.MaxEntryBytes
}

func entrySize(f *flight, res []byte) int64 {
	return int64(len(res)+len(f.params)) + EntryOverhead
}

// store publishes the flight's result as the key's entry, to live for
// ttl (zero: until evicted), unless an invalidation unregistered the
// flight while fill ran.
func (c *Cache) store(ttl time.Duration, sh *shard, h uint64, f *flight, res []byte) {
	e := &entry{
		hash:    h,
		method:  f.method,
		params:  f.params,
		result:  res,
		expires: noExpiry,
		size:    entrySize(f, res),
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if ttl > 0 {
		e.expires = c.now() + int64(ttl)
	}
	sh.mu.Lock()
	if !sh.unregisterLocked(h, f) {
		sh.mu.Unlock()
		return
	}
	old := sh.entries[h]
	sh.entries[h] = e
	sh.mu.Unlock()
	c.admitLocked(e, old)
}
