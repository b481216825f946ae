package redisstore

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/redis/go-redis/v9"
)

// Invalidation across instances: the instance that invalidates writes a
// new generation (a method's, or every method's) or deletes one key's
// entry and lock in Redis, and publishes what it did on the cache's
// channel, in the same round trip; every other instance drops its own
// entries on the message. A message missed (the bus delivers at most
// once) is made up for by the generations each script checks, and by
// dropping the local entries when an outage ends.

// invalidation is an invalidation's message on the cache's channel.
type invalidation struct {
	Origin string          `json:"o"`           // the instance that made it
	Kind   string          `json:"k"`           // "m" a method, "k" a key, "a" all
	Method string          `json:"m,omitempty"` // for "m" and "k"
	Params json.RawMessage `json:"p,omitempty"` // canonical, for "k"
	Gen    string          `json:"g,omitempty"` // the new generation, for "m" and "a"
}

// invalidateKeyScript: KEYS entry (3) and lock (4); ARGV the channel (3)
// and the message (4). Deletes both and publishes.
var invalidateKeyScript = redis.NewScript(genCheck + `
redis.call('DEL', KEYS[3], KEYS[4])
redis.call('PUBLISH', ARGV[3], ARGV[4])
return {'ok'}
`)

// Invalidate implements cache.Tier: a new generation for method, so that
// its entries in Redis are no longer found and its fills under way do
// not store their results, and a message to the other instances, in one
// round trip. If Redis cannot be reached, the tier invalidates everything
// there once it can.
func (t *CacheTier) Invalidate(method string) {
	gen := cacheToken()
	t.newGeneration(t.genKey(method), invalidation{Kind: "m", Method: method, Gen: gen}, func() {
		t.mu.Lock()
		t.gens[method] = gen
		t.mu.Unlock()
	})
}

// InvalidateAll implements cache.Tier: Invalidate for every method.
func (t *CacheTier) InvalidateAll() {
	gen := cacheToken()
	t.newGeneration(t.genAll, invalidation{Kind: "a", Gen: gen}, func() {
		t.mu.Lock()
		t.all = gen
		t.mu.Unlock()
	})
}

// newGeneration writes msg's generation at key and publishes msg, then
// calls seen; it records an invalidation lost if Redis fails.
func (t *CacheTier) newGeneration(key string, msg invalidation, seen func()) {
	if !t.usable() {
		t.lost.Store(true)
		return
	}
	payload := t.message(msg)
	ctx, cancel := t.s.bound(context.Background())
	defer cancel()
	_, err := t.s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		p.Set(ctx, key, msg.Gen, t.genTTL())
		p.Publish(ctx, t.channel, payload)
		return nil
	})
	if err != nil {
		t.lost.Store(true)
		t.failed(err)
		return
	}
	seen()
	t.ok()
}

// InvalidateKey implements cache.Tier: the key's entry and lock are
// deleted (a fill holding the lock then stores nothing) and the other
// instances told, in one round trip (two if the generations this
// instance knew were stale).
func (t *CacheTier) InvalidateKey(method string, params []byte) {
	if !t.usable() {
		t.lost.Store(true)
		return
	}
	payload := t.message(invalidation{Kind: "k", Method: method, Params: params})
	h := cacheHash(method, params)
	for range maxGenRounds {
		all, m := t.generations(method)
		entry, lock := t.keys(all, m, h)
		ctx, cancel := t.s.bound(context.Background())
		r, err := invalidateKeyScript.Run(ctx, t.s.rdb, []string{t.genAll, t.genKey(method), entry, lock},
			all, m, t.channel, payload).Slice()
		cancel()
		if err != nil {
			t.lost.Store(true)
			t.failed(err)
			return
		}
		t.ok()
		if len(r) != 3 || r[0] != "g" {
			return
		}
		ga, _ := r[1].(string)
		gm, _ := r[2].(string)
		t.learn(method, ga, gm)
	}
}

// message encodes msg from this instance.
func (t *CacheTier) message(msg invalidation) string {
	msg.Origin = t.s.instance
	if len(msg.Params) == 0 {
		msg.Params = nil
	}
	b, _ := json.Marshal(msg) // strings and valid (canonical) JSON only
	return string(b)
}

// onMessage handles a message on the cache's channel (on the bus's
// goroutine): a wake-up for the waiters of a key, or an invalidation,
// which wakes every waiter (they look again under the new generations)
// and, made elsewhere, drops this instance's entries.
func (t *CacheTier) onMessage(payload string) {
	if strings.HasPrefix(payload, "w") && len(payload) > 2 {
		t.wake(payload[2:], payload[1])
		return
	}
	var msg invalidation
	if json.Unmarshal([]byte(payload), &msg) != nil {
		return
	}
	defer t.wake("", wakeRetry)
	if msg.Origin == t.s.instance {
		return
	}
	switch msg.Kind {
	case "m":
		t.mu.Lock()
		t.gens[msg.Method] = msg.Gen
		t.mu.Unlock()
		t.local.Invalidate(msg.Method)
	case "a":
		t.mu.Lock()
		t.all = msg.Gen
		t.mu.Unlock()
		t.local.InvalidateAll()
	case "k":
		t.local.InvalidateKey(msg.Method, msg.Params)
	}
}
