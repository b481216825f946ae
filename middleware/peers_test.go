package middleware

import (
	"slices"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/conn"
)

// check verifies the table's invariants: each entry in its shard's map and
// list once, the list in order of last use, no shard past its bound.
func (t *peerTable) check(tb testing.TB) {
	tb.Helper()
	for i := range t.sh {
		s := &t.sh[i]
		n := 0
		var prev *peerEntry
		for at := s.lru.Front(); at != nil; at = at.Next() {
			e := at.Value.(*peerEntry)
			if e.at != at || s.m[e.key] != e {
				tb.Fatalf("shard %d: entry %v badly linked", i, e.key)
			}
			if prev != nil && prev.seen.Before(e.seen) {
				tb.Fatalf("shard %d: %v used after %v but behind it", i, e.key, prev.key)
			}
			prev, n = e, n+1
		}
		if n != len(s.m) || n != s.lru.Len() || n > t.max {
			tb.Fatalf("shard %d: %d listed, %d mapped, bound %d", i, n, len(s.m), t.max)
		}
	}
}

func TestPeerTable_boundedDropsTheLeastRecentlySeen(t *testing.T) {
	const perShard = 4
	tab := newPeerTable(1, 1, time.Hour, shards*perShard)
	now := time.Unix(1000, 0)
	lastUse := map[int]int{} // key → when it was last used (a step number)
	use := func(k, step int) {
		tab.limiter(peer{other: k}, now)
		lastUse[k] = step
	}
	for k := range 1000 {
		now = now.Add(time.Millisecond)
		use(k, 2*k)
		if k%7 == 0 {
			use(0, 2*k+1) // 0 stays fairly recent
		}
	}
	tab.check(t)
	if n := tab.len(); n != shards*perShard {
		t.Fatalf("%d peers tracked, want %d", n, shards*perShard)
	}
	// Each shard keeps the perShard keys it saw last.
	byShard := map[uint64][]int{}
	for k := range lastUse {
		sh := peer{other: k}.hash(tab.seed) % shards
		byShard[sh] = append(byShard[sh], k)
	}
	for sh, keys := range byShard {
		slices.SortFunc(keys, func(a, b int) int { return lastUse[b] - lastUse[a] })
		for i, k := range keys {
			if kept := tab.has(peer{other: k}); kept != (i < perShard) {
				t.Errorf("shard %d: key %d (rank %d by last use) kept: %v", sh, k, i, kept)
			}
		}
	}
	if !tab.has(peer{other: 0}) {
		t.Error("the peer used all along was dropped")
	}
}

func TestPeerTable_keepsTheLimiterOfAKnownPeer(t *testing.T) {
	tab := newPeerTable(1, 1, time.Hour, 100)
	now := time.Unix(1000, 0)
	a := tab.limiter(peer{ip: "a"}, now)
	if !a.AllowN(now, 1) || a.AllowN(now, 1) {
		t.Fatal("burst 1")
	}
	if tab.limiter(peer{ip: "a"}, now.Add(time.Millisecond)) != a {
		t.Error("a known peer got a new limiter")
	}
	tab.check(t)
}

func TestPeerTable_sweepsIdlePeersAndEndedSessions(t *testing.T) {
	tab := newPeerTable(1, 1, time.Minute, 1000)
	now := time.Unix(1000, 0)
	live := conn.NewStream(nil, nil)
	defer live.Close()
	ended := conn.NewStream(nil, nil)
	for k := range 100 {
		tab.limiter(peer{other: k}, now)
	}
	tab.limiter(peer{c: live}, now)
	tab.limiter(peer{c: ended}, now)
	ended.Close()
	<-ended.Done()

	// 30 s later (a sweep is due every 10 s): the ended session goes, the
	// rest stays until idle for a minute.
	now = now.Add(30 * time.Second)
	for _, k := range tab.oneKeyPerShard(10_000) {
		tab.limiter(peer{other: k}, now) // a sweep in every shard
	}
	tab.check(t)
	if tab.has(peer{c: ended}) || !tab.has(peer{c: live}) {
		t.Errorf("after 30 s: ended kept %v, live kept %v", tab.has(peer{c: ended}), tab.has(peer{c: live}))
	}
	if n := tab.len(); n != 101+shards {
		t.Errorf("%d peers after 30 s, want %d", n, 101+shards)
	}

	now = now.Add(45 * time.Second) // the first 100 and live idle for 75 s; those of 10_000 on for 45 s
	for _, k := range tab.oneKeyPerShard(20_000) {
		tab.limiter(peer{other: k}, now)
	}
	tab.check(t)
	if tab.has(peer{c: live}) || tab.has(peer{other: 50}) {
		t.Error("idle peers kept past IdleTimeout")
	}
	for _, k := range tab.oneKeyPerShard(10_000) {
		if !tab.has(peer{other: k}) {
			t.Errorf("peer %d, seen 45 s ago, dropped", k)
		}
	}
	if n := tab.len(); n != 2*shards {
		t.Errorf("%d peers left, want %d", n, 2*shards)
	}
}

// oneKeyPerShard returns, for each shard, the first int from 'from' on
// that falls in it.
func (t *peerTable) oneKeyPerShard(from int) []any {
	keys := make([]any, shards)
	for k, n := from, 0; n < shards; k++ {
		if sh := (peer{other: k}).hash(t.seed) % shards; keys[sh] == nil {
			keys[sh] = k
			n++
		}
	}
	return keys
}

func (t *peerTable) shardOf(key peer) int {
	for i := range t.sh {
		if _, ok := t.sh[i].m[key]; ok {
			return i
		}
	}
	return -1
}

func (t *peerTable) has(key peer) bool { return t.shardOf(key) >= 0 }
