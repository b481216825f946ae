package middleware

// The per-peer limiters of RateLimit: a table sharded by the key's hash,
// each shard a map plus a list in order of last use (most recent at the
// front), under the shard's mutex.
//
// Fast path: a known peer costs a hash, a lock, a map lookup and moving
// its entry to the front. Slow path: a new peer allocates its entry; a
// shard full at MaxPeers/shards drops its least recently used peer. Every
// 10 seconds (IdleTimeout if shorter) a shard also walks its entries and drops those idle for
// IdleTimeout and those whose session has ended: a limiter idle for longer
// than it takes to refill its burst is as good as a new one, so dropping
// it changes no answer.
//
// Keys are peer values, not interfaces, so that the default key (a
// session, or an IP address) needs no allocation to look up.
//
// Invariants: every entry is in its shard's map and list exactly once;
// len(m) <= max.

import (
	"container/list"
	"hash/maphash"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/mcpwire/mcpwire/conn"
)

const shards = 16

type peerTable struct {
	seed  maphash.Seed
	limit rate.Limit
	burst int
	idle  time.Duration // drop entries unused for this long
	sweep time.Duration // between two sweeps of a shard
	max   int           // entries per shard
	sh    [shards]peerShard
}

// peer identifies a peer: exactly one field is set, or none (calls outside
// of any session share that one).
type peer struct {
	c     *conn.Conn // a session
	ip    string     // a remote IP address
	other any        // RateOptions.Key's value
}

// sharedKey returns the key a RateStore knows p by, if p has one: an IP
// address or a string RateOptions.Key gave.
func (p peer) sharedKey() (string, bool) {
	if p.ip != "" {
		return p.ip, true
	}
	s, ok := p.other.(string)
	return s, ok
}

// hash places p in a shard.
func (p peer) hash(seed maphash.Seed) uint64 {
	switch {
	case p.c != nil:
		return maphash.Comparable(seed, p.c)
	case p.ip != "":
		return maphash.String(seed, p.ip)
	}
	return maphash.Comparable(seed, p.other)
}

type peerShard struct {
	mu    sync.Mutex
	m     map[peer]*peerEntry
	lru   list.List // of *peerEntry, the most recently used in front
	swept time.Time
	_     [64]byte // keep shards' locks apart
}

type peerEntry struct {
	key  peer
	lim  *rate.Limiter
	seen time.Time
	at   *list.Element // in lru
}

func newPeerTable(limit rate.Limit, burst int, idle time.Duration, maxPeers int) *peerTable {
	t := &peerTable{
		seed: maphash.MakeSeed(), limit: limit, burst: burst,
		idle: idle, sweep: min(idle, 10*time.Second), max: max(1, maxPeers/shards),
	}
	for i := range t.sh {
		t.sh[i].m = map[peer]*peerEntry{}
	}
	return t
}

// limiter returns key's limiter, made if needed, marked used at now.
func (t *peerTable) limiter(key peer, now time.Time) *rate.Limiter {
	s := &t.sh[key.hash(t.seed)%shards]
	s.mu.Lock()
	defer s.mu.Unlock()
	if now.Sub(s.swept) >= t.sweep {
		s.sweepLocked(now, t.idle)
	}
	e, ok := s.m[key]
	if ok {
		s.lru.MoveToFront(e.at)
	} else {
		if len(s.m) >= t.max {
			s.dropLocked(s.lru.Back().Value.(*peerEntry))
		}
		e = &peerEntry{key: key, lim: rate.NewLimiter(t.limit, t.burst)}
		e.at = s.lru.PushFront(e)
		s.m[key] = e
	}
	e.seen = now
	return e.lim
}

// len returns the number of peers tracked.
func (t *peerTable) len() int {
	n := 0
	for i := range t.sh {
		s := &t.sh[i]
		s.mu.Lock()
		n += len(s.m)
		s.mu.Unlock()
	}
	return n
}

// sweepLocked drops the entries idle since now-idle and those of ended
// sessions.
func (s *peerShard) sweepLocked(now time.Time, idle time.Duration) {
	s.swept = now
	for at := s.lru.Back(); at != nil; {
		prev, e := at.Prev(), at.Value.(*peerEntry)
		if now.Sub(e.seen) >= idle || sessionEnded(e.key.c) {
			s.dropLocked(e)
		}
		at = prev
	}
}

// sessionEnded reports whether c is a session that has ended.
func sessionEnded(c *conn.Conn) bool {
	if c == nil {
		return false
	}
	select {
	case <-c.Done():
		return true
	default:
		return false
	}
}

func (s *peerShard) dropLocked(e *peerEntry) {
	s.lru.Remove(e.at)
	delete(s.m, e.key)
}
