package cache

import (
	"context"
	"math/rand/v2"
	"strconv"
	"sync"
	"testing"
	"unsafe"
)

// put stores result for key i of method "m" through Do.
func put(t testing.TB, m *Method, i int, result string) {
	t.Helper()
	_, err := m.Do(context.Background(), "m", []byte(`[`+strconv.Itoa(i)+`]`), func() ([]byte, error) {
		return []byte(result), nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func has(m *Method, i int) bool {
	_, ok := m.Lookup("m", []byte(`[`+strconv.Itoa(i)+`]`))
	return ok
}

// checkInvariants checks that the queues, the index and the totals agree.
func checkInvariants(t testing.TB, c *Cache) {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	queued := map[*entry]bool{}
	var n, bytes int64
	for _, q := range []*queue{&c.small, &c.main} {
		var qn int
		var qb int64
		var prev *entry
		for e := q.head; e != nil; prev, e = e, e.next {
			if e.q != q || e.prev != prev || queued[e] {
				t.Fatalf("queue links broken at %s", e.params)
			}
			queued[e] = true
			qn++
			qb += e.size
		}
		if q.tail != prev || q.n != qn || q.bytes != qb {
			t.Fatalf("queue says %d entries, %d bytes; holds %d, %d", q.n, q.bytes, qn, qb)
		}
		n, bytes = n+int64(qn), bytes+qb
	}
	indexed := 0
	for i := range c.shards {
		for h, e := range c.shards[i].entries {
			if e.hash != h || !queued[e] || c.shard(h) != &c.shards[i] {
				t.Fatalf("index entry %s is not queued or misplaced", e.params)
			}
			indexed++
		}
	}
	if indexed != len(queued) || c.n.Load() != n || c.bytes.Load() != bytes {
		t.Fatalf("index %d, queues %d entries; totals say %d entries, %d bytes, queues %d bytes",
			indexed, len(queued), c.n.Load(), c.bytes.Load(), bytes)
	}
}

// TestPolicy_hotEntriesSurviveAScan: entries in use stay while ten times
// the cache's capacity of one-hit wonders passes through (a FIFO or an
// LRU would lose every one of them).
func TestPolicy_hotEntriesSurviveAScan(t *testing.T) {
	c := New(&Options{MaxEntries: 100})
	m := c.Method(0)
	const hot = 50
	for i := range hot {
		put(t, m, i, `"hot"`)
	}
	for i := range 1000 {
		put(t, m, 1000+i, `"cold"`)
		if i%10 == 0 { // the hot set keeps being used, as a scan goes by
			for j := range hot {
				has(m, j)
			}
		}
	}
	kept := 0
	for i := range hot {
		if has(m, i) {
			kept++
		}
	}
	if kept < hot*9/10 {
		t.Fatalf("%d of %d hot entries survived the scan", kept, hot)
	}
	checkInvariants(t, c)
}

// TestPolicy_ghostAdmitsStraightToMain: a key asked again soon after its
// eviction from the small queue comes back into the main queue.
func TestPolicy_ghostAdmitsStraightToMain(t *testing.T) {
	c := New(&Options{MaxEntries: 10})
	m := c.Method(0)
	put(t, m, 0, `0`)
	for i := 1; i <= 10; i++ {
		put(t, m, i, `0`)
	}
	if has(m, 0) || c.Evictions() != 1 {
		t.Fatalf("entry 0 should be the one evicted (%d evictions)", c.Evictions())
	}
	put(t, m, 0, `0`)
	c.mu.Lock()
	inMain := c.main.head != nil && string(c.main.head.params) == `[0]`
	c.mu.Unlock()
	if !inMain {
		t.Fatal("a key in the ghost queue was not admitted to the main queue")
	}
	checkInvariants(t, c)
}

func TestGhost_remembersTheLatestMax(t *testing.T) {
	g := ghost{at: map[uint64]int{}, max: 3}
	for h := range uint64(5) {
		g.add(h)
	}
	g.add(4) // already there: no second slot
	for h, want := range []bool{false, false, true, true, true} {
		if got := g.take(uint64(h)); got != want {
			t.Fatalf("take(%d) = %v, want %v", h, got, want)
		}
	}
	if g.take(4) || len(g.at) != 0 {
		t.Fatal("take must forget")
	}
	g.add(7)
	g.add(8)
	g.add(9) // overwrites the slot of 2, taken: nothing else forgotten
	if !g.take(7) || !g.take(8) || !g.take(9) {
		t.Fatal("the ring forgot a live hash")
	}
}

// TestPolicy_concurrentUseKeepsInvariants: fills, hits and invalidations
// from many goroutines on a small key space, under -race; then the
// structures must agree.
func TestPolicy_concurrentUseKeepsInvariants(t *testing.T) {
	c := New(&Options{MaxEntries: 64, MaxBytes: 32 << 10})
	methods := []*Method{c.Method(0), c.Method(1)} // 1ns: expires at once
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(g), 1))
			for range 2000 {
				m := methods[r.IntN(2)]
				k := []byte(`{"k":` + strconv.Itoa(r.IntN(200)) + `}`)
				switch op := r.IntN(100); {
				case op < 60:
					m.Lookup("m", k)
				case op < 97:
					size := 2 + r.IntN(1000)
					m.Do(context.Background(), "m", k, func() ([]byte, error) {
						b := make([]byte, size)
						for i := range b {
							b[i] = '1'
						}
						return b, nil
					})
				case op < 98:
					c.InvalidateKey("m", k)
				case op < 99:
					c.Invalidate("m")
				default:
					c.InvalidateAll()
				}
				if c.Len() > 64 || c.Bytes() > 32<<10 {
					t.Errorf("bounds exceeded: %d entries, %d bytes", c.Len(), c.Bytes())
					return
				}
			}
		})
	}
	wg.Wait()
	checkInvariants(t, c)
	for i := range c.shards {
		if n := len(c.shards[i].flights); n != 0 {
			t.Fatalf("shard %d holds %d flights after every call returned", i, n)
		}
	}
}

func TestShard_fillsACacheLine(t *testing.T) {
	if s := unsafe.Sizeof(shard{}); s%64 != 0 {
		t.Fatalf("a shard is %d bytes: neighbours share cache lines", s)
	}
}
