package redisstore

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mcpwire/mcpwire/mcp"
)

// Defaults of KeyRingOptions.
const (
	// DefaultKeyRingReload is how often a KeyRing reads the ring from
	// Redis, unless KeyRingOptions.Reload says otherwise.
	DefaultKeyRingReload = time.Minute
	// keyRingTTL is the time to live of the ring in Redis, renewed by
	// every reload of every instance: it outlives the ring's last
	// instance by a day.
	keyRingTTL = 24 * time.Hour
)

// KeyRingOptions configure a KeyRing. A nil *KeyRingOptions gives the
// defaults; KeyRing copies the value. A zero field takes its default.
type KeyRingOptions struct {
	// Overlap is how long a key that Rotate replaced goes on opening the
	// states it sealed, counted from when its successor starts sealing
	// (default mcp.DefaultRequestStateTTL). Give the servers'
	// RequestStateOptions.TTL, so that no state dies early because of a
	// rotation; it replaces their RequestStateOptions.Overlap.
	Overlap time.Duration
	// Reload is how often the ring is read from Redis (default
	// DefaultKeyRingReload): an instance that missed the message of a
	// rotation learns of it this late at most.
	Reload time.Duration
	// Delay is how long after Rotate the new key starts sealing (default:
	// twice Reload): every instance that reaches Redis holds it by then,
	// so none meets a state sealed under a key it lacks. The instances'
	// clocks must agree with Redis's to well within it.
	Delay time.Duration
	// Logger receives the failures of the periodic reload (the first of a
	// run of them) and the recovery (default slog.Default()).
	Logger *slog.Logger
}

// KeyRing is the ring of keys that seal requestState (mcp's
// multi-round-trip requests of 2026-07-28), shared in Redis by every
// instance of a server, so that any instance opens the states another
// sealed, and a rotation done on one reaches all. Safe for concurrent
// use; Close it when done.
//
// Rotate adds a key that starts sealing Delay later, on Redis's clock;
// until then every instance only opens with it. A message on the bus
// has every instance read the ring at once, and each reads it every
// Reload besides (a message is delivered at most once), so all of them
// hold the key before any seals with it, and all switch at the same
// moment. The key it replaces opens for Overlap more, then leaves Redis
// and the servers.
//
// Sealing and opening never go to Redis: the servers hold the keys. When
// Redis is down the servers keep the keys they have (a rotation waits
// until it is back; Rotate returns an error), the reload is retried every
// Reload, logged once per outage, and catches up when Redis answers. If
// Redis lost the ring (restarted without persistence), the first instance
// to read it writes back the keys it holds.
//
// The secrets of the keys sit in Redis (in a hash, base64): whoever can
// read the store's keys can forge and read requestState. Protect Redis as
// a secret store: an ACL user whose keys are the store's prefix, TLS
// (rediss:// URLs in Dial), no shared database.
type KeyRing struct {
	s    *Store
	o    KeyRingOptions
	name string // the hash
	log  *slog.Logger

	reloading sync.Mutex // serialises Reload

	mu      sync.Mutex // guards what follows; held while applying
	ring    []ringEntry
	servers []*mcp.Server
	applied string // signature of the keys last given to the servers
	failing bool

	wake  chan struct{} // a message on the bus: read the ring now
	done  chan struct{}
	ended chan struct{}
	unsub func()
	close sync.Once
}

// ringEntry is one key of the ring as Redis holds it: field id, value
// "from until secret", times in Unix milliseconds (0: none).
type ringEntry struct {
	id          uint32
	from, until int64 // from: when it starts sealing; until: when it stops opening
	secret      []byte
}

// KeyRing reads the shared ring from Redis, writing a first key if there
// is none (atomically: instances starting at once agree on it), and
// starts keeping it in step. Give its Keys to the server
// (mcp.RequestStateOptions.Keys) and the server to Attach. It fails if
// Redis cannot be read: the caller then starts without a shared ring, or
// not at all.
func (s *Store) KeyRing(ctx context.Context, opts *KeyRingOptions) (*KeyRing, error) {
	var o KeyRingOptions
	if opts != nil {
		o = *opts
	}
	if o.Overlap <= 0 {
		o.Overlap = mcp.DefaultRequestStateTTL
	}
	if o.Reload <= 0 {
		o.Reload = DefaultKeyRingReload
	}
	if o.Delay <= 0 {
		o.Delay = 2 * o.Reload
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	k := &KeyRing{
		s: s, o: o, name: s.key("rskeys"), log: o.Logger,
		wake: make(chan struct{}, 1), done: make(chan struct{}), ended: make(chan struct{}),
	}
	unsub, err := s.subscribe(ctx, s.channel("rskeys"), func(string) {
		select {
		case k.wake <- struct{}{}:
		default:
		}
	})
	if err != nil {
		return nil, err
	}
	k.unsub = unsub
	if err := k.Reload(ctx); err != nil {
		unsub()
		return nil, err
	}
	go k.run()
	return k, nil
}

// Keys returns the ring's keys at this moment, as a server takes them
// (mcp.RequestStateOptions.Keys): the sealing key first. The slice and
// its secrets are the caller's.
func (k *KeyRing) Keys() []mcp.RequestStateKey {
	k.mu.Lock()
	defer k.mu.Unlock()
	return keysAt(k.ring, time.Now())
}

// Attach gives srv the ring's keys now and whenever they change, until
// Close. A server started with Keys is attached all the same (the ring
// may have moved on).
func (k *KeyRing) Attach(srv *mcp.Server) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if err := srv.SetRequestStateKeys(keysAt(k.ring, time.Now())); err != nil {
		return err
	}
	k.servers = append(k.servers, srv)
	return nil
}

// Rotate adds a new key drawn from crypto/rand to the shared ring, to
// start sealing Delay from now on every instance, and tells the others.
// It returns the key. It fails, changing nothing, if Redis cannot be
// reached within ctx's deadline (and the store's timeout).
func (k *KeyRing) Rotate(ctx context.Context) (mcp.RequestStateKey, error) {
	// The ring may have been lost: write back what this instance holds
	// before adding to it.
	if err := k.Reload(ctx); err != nil {
		return mcp.RequestStateKey{}, err
	}
	for range 4 { // an id drawn twice in 2^32: draw again
		key, err := newKey()
		if err != nil {
			return mcp.RequestStateKey{}, err
		}
		rctx, cancel := k.s.bound(ctx)
		res, err := rotateScript.Run(rctx, k.s.rdb, []string{k.name},
			keyRingTTL.Milliseconds(), k.o.Delay.Milliseconds(), k.o.Overlap.Milliseconds(),
			key.ID, base64.StdEncoding.EncodeToString(key.Secret)).Int()
		cancel()
		switch {
		case err != nil:
			return mcp.RequestStateKey{}, err
		case res < 0:
			return mcp.RequestStateKey{}, errors.New("redisstore: the requestState key ring left Redis during the rotation")
		case res == 0:
			continue
		}
		_ = k.s.publish(ctx, k.s.channel("rskeys"), "rotate") // without it, the reloads catch up
		return key, k.Reload(ctx)
	}
	return mcp.RequestStateKey{}, errors.New("redisstore: no free key id")
}

// Reload reads the ring from Redis now and gives the attached servers
// its keys (writing back the keys this instance holds, or a first key,
// if Redis has none). A KeyRing does it by itself every Reload and when
// told of a rotation.
func (k *KeyRing) Reload(ctx context.Context) error {
	k.reloading.Lock() // so that an older read never replaces a newer one
	defer k.reloading.Unlock()
	k.mu.Lock()
	proposal := k.ring
	k.mu.Unlock()
	if len(proposal) == 0 {
		key, err := newKey()
		if err != nil {
			return err
		}
		proposal = []ringEntry{{id: key.ID, secret: key.Secret}}
	}
	args := make([]any, 0, 1+2*len(proposal))
	args = append(args, keyRingTTL.Milliseconds())
	for _, e := range proposal {
		args = append(args, strconv.FormatUint(uint64(e.id), 10), e.value())
	}
	ctx, cancel := k.s.bound(ctx)
	defer cancel()
	fields, err := loadScript.Run(ctx, k.s.rdb, []string{k.name}, args...).StringSlice()
	if err != nil {
		return err
	}
	ring, err := parseRing(fields)
	if err != nil {
		return err
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	k.ring = ring
	return k.applyLocked(time.Now())
}

// Close stops keeping the servers in step; they keep the keys they have.
func (k *KeyRing) Close() error {
	k.close.Do(func() {
		close(k.done)
		<-k.ended
		k.unsub()
	})
	return nil
}

// run reads the ring every Reload and when the bus says so, and switches
// the servers to a key when its time to seal comes.
func (k *KeyRing) run() {
	defer close(k.ended)
	next := time.Now().Add(k.o.Reload)
	t := time.NewTimer(k.o.Reload)
	defer t.Stop()
	for {
		k.mu.Lock()
		now := time.Now()
		wait := next.Sub(now)
		if at, ok := nextChange(k.ring, now); ok && at.Sub(now) < wait {
			wait = at.Sub(now)
		}
		k.mu.Unlock()
		t.Reset(max(wait, time.Millisecond))
		select {
		case <-k.done:
			return
		case <-k.wake:
		case <-t.C:
			if time.Now().Before(next) { // a key's time came: no need of Redis
				k.mu.Lock()
				err := k.applyLocked(time.Now())
				k.mu.Unlock()
				k.report(err)
				continue
			}
		}
		next = time.Now().Add(k.o.Reload)
		k.report(k.Reload(context.Background()))
	}
}

// report logs the first failure of a run of them, and the recovery.
func (k *KeyRing) report(err error) {
	k.mu.Lock()
	was := k.failing
	k.failing = err != nil
	k.mu.Unlock()
	switch {
	case err != nil && !was:
		k.log.Warn("requestState key ring: reading it from Redis failed; the servers keep their keys", "error", err.Error())
	case err == nil && was:
		k.log.Info("requestState key ring: read from Redis again")
	}
}

// applyLocked gives the servers the keys of the ring at now, if they
// changed.
func (k *KeyRing) applyLocked(now time.Time) error {
	keys := keysAt(k.ring, now)
	sig := signature(keys)
	if sig == k.applied {
		return nil
	}
	for _, srv := range k.servers {
		if err := srv.SetRequestStateKeys(keys); err != nil {
			return err
		}
	}
	k.applied = sig
	return nil
}

// keysAt returns the keys of ring a server holds at now: the key that
// seals (the latest whose time has come; the earliest if none has),
// then the keys yet to seal (no Until), then those that still open
// states they sealed.
func keysAt(ring []ringEntry, now time.Time) []mcp.RequestStateKey {
	ms := now.UnixMilli()
	es := slices.Clone(ring)
	slices.SortFunc(es, func(a, b ringEntry) int { // latest first
		if c := cmp.Compare(b.from, a.from); c != 0 {
			return c
		}
		return cmp.Compare(b.id, a.id)
	})
	seal := slices.IndexFunc(es, func(e ringEntry) bool { return e.from <= ms })
	if seal < 0 {
		seal = len(es) - 1
	}
	keys := make([]mcp.RequestStateKey, 0, len(es))
	keys = append(keys, es[seal].key(time.Time{}))
	for i, e := range es {
		switch {
		case i == seal:
		case i < seal: // yet to seal
			keys = append(keys, e.key(time.Time{}))
		case e.until > ms:
			keys = append(keys, e.key(time.UnixMilli(e.until)))
		}
	}
	return keys
}

// nextChange returns when keysAt's answer changes next: a key starts
// sealing or stops opening.
func nextChange(ring []ringEntry, now time.Time) (time.Time, bool) {
	ms, at := now.UnixMilli(), int64(0)
	for _, e := range ring {
		for _, t := range []int64{e.from, e.until} {
			if t > ms && (at == 0 || t < at) {
				at = t
			}
		}
	}
	return time.UnixMilli(at), at != 0
}

// signature tells sets of keys apart by their ids, order and Untils (an
// id names one secret in a ring).
func signature(keys []mcp.RequestStateKey) string {
	var b strings.Builder
	for _, k := range keys {
		b.WriteString(strconv.FormatUint(uint64(k.ID), 10))
		b.WriteByte('/')
		b.WriteString(strconv.FormatInt(k.Until.UnixMilli(), 10))
		b.WriteByte(' ')
	}
	return b.String()
}

func (e ringEntry) key(until time.Time) mcp.RequestStateKey {
	return mcp.RequestStateKey{ID: e.id, Secret: slices.Clone(e.secret), Until: until}
}

func (e ringEntry) value() string {
	return strconv.FormatInt(e.from, 10) + " " + strconv.FormatInt(e.until, 10) + " " +
		base64.StdEncoding.EncodeToString(e.secret)
}

// parseRing reads HGETALL's fields and values.
func parseRing(fields []string) ([]ringEntry, error) {
	bad := errors.New("redisstore: the requestState key ring in Redis is malformed")
	if len(fields) == 0 || len(fields)%2 != 0 {
		return nil, bad
	}
	ring := make([]ringEntry, 0, len(fields)/2)
	for i := 0; i < len(fields); i += 2 {
		id, err := strconv.ParseUint(fields[i], 10, 32)
		parts := strings.SplitN(fields[i+1], " ", 3)
		if err != nil || len(parts) != 3 {
			return nil, bad
		}
		e := ringEntry{id: uint32(id)}
		e.from, err = strconv.ParseInt(parts[0], 10, 64)
		if err == nil {
			e.until, err = strconv.ParseInt(parts[1], 10, 64)
		}
		if err == nil {
			e.secret, err = base64.StdEncoding.DecodeString(parts[2])
		}
		if err != nil || len(e.secret) != mcp.RequestStateKeySize {
			return nil, bad
		}
		ring = append(ring, e)
	}
	return ring, nil
}

// newKey draws a key and its id from crypto/rand.
func newKey() (mcp.RequestStateKey, error) {
	var id [4]byte
	if _, err := rand.Read(id[:]); err != nil {
		return mcp.RequestStateKey{}, err
	}
	return mcp.NewRequestStateKey(binary.BigEndian.Uint32(id[:]))
}

// loadScript returns the ring in KEYS[1] (HGETALL), first writing the
// fields and values of ARGV[2…] if there is none, and renews its time to
// live (ARGV[1], milliseconds).
var loadScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then
	for i = 2, #ARGV, 2 do
		redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
	end
end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return redis.call('HGETALL', KEYS[1])
`)

// rotateScript adds key ARGV[4] (secret ARGV[5]) to the ring in KEYS[1],
// to start sealing ARGV[2] ms from now on Redis's clock (and after the
// latest key), sets the Until of the key it follows to that moment plus
// ARGV[3] ms, drops the keys whose Until has passed, and renews the time
// to live (ARGV[1] ms). It answers 1, 0 if the id is taken, -1 if there
// is no ring (Reload writes it first).
var rotateScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then
	return -1
end
if redis.call('HEXISTS', KEYS[1], ARGV[4]) == 1 then
	return 0
end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local fields = redis.call('HGETALL', KEYS[1])
local last, lastID, lastSecret = -1, nil, nil
for i = 1, #fields, 2 do
	local from, untl, secret = string.match(fields[i + 1], '^(%d+) (%d+) (.+)$')
	from, untl = tonumber(from), tonumber(untl)
	if untl ~= 0 and untl <= now then
		redis.call('HDEL', KEYS[1], fields[i])
	elseif from > last then
		last, lastID, lastSecret = from, fields[i], secret
	end
end
local from = math.max(now + tonumber(ARGV[2]), last + 1)
if lastID then
	redis.call('HSET', KEYS[1], lastID, string.format('%.0f %.0f %s', last, from + tonumber(ARGV[3]), lastSecret))
end
redis.call('HSET', KEYS[1], ARGV[4], string.format('%.0f 0 %s', from, ARGV[5]))
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return 1
`)
