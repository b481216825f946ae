package cache_test

import (
	"context"
	"errors"
	"strconv"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpwire/mcpwire/cache"
)

// fillWith returns a fill that counts its runs and returns result.
func fillWith(runs *atomic.Int64, result string) func() ([]byte, error) {
	return func() ([]byte, error) {
		runs.Add(1)
		return []byte(result), nil
	}
}

func TestCache_keyIsMethodAndCanonicalParams(t *testing.T) {
	for _, tc := range []struct {
		name         string
		method1, p1  string
		method2, p2  string
		sameEntryFor bool
	}{
		{"member order and white space", "m", `{"a":1,"b":[2,3]}`, "m", ` { "b" : [2,3], "a":1 }`, true},
		{"escapes", "m", `{"s":"\u0061\/"}`, "m", `{"s":"a/"}`, true},
		{"nested objects", "m", `[{"y":{"q":1,"p":2},"x":0}]`, "m", `[{"x":0,"y":{"p":2,"q":1}}]`, true},
		{"array order", "m", `[1,2]`, "m", `[2,1]`, false},
		{"number spelling", "m", `[1]`, "m", `[1.0]`, false},
		{"method", "m", `[1]`, "n", `[1]`, false},
		{"absent and empty", "m", ``, "m", `{}`, false},
		{"empty object and array", "m", `{}`, "m", `[]`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := cache.New(nil)
			m := c.Method(0)
			var runs atomic.Int64
			if _, err := m.Do(context.Background(), tc.method1, []byte(tc.p1), fillWith(&runs, `1`)); err != nil {
				t.Fatal(err)
			}
			res, hit := m.Lookup(tc.method2, []byte(tc.p2))
			if hit != tc.sameEntryFor || hit && string(res) != `1` {
				t.Fatalf("Lookup(%s, %s) after Do(%s, %s): %s %v, want hit %v", tc.method2, tc.p2, tc.method1, tc.p1, res, hit, tc.sameEntryFor)
			}
			if _, err := m.Do(context.Background(), tc.method2, []byte(tc.p2), fillWith(&runs, `2`)); err != nil {
				t.Fatal(err)
			}
			if want := map[bool]int64{true: 1, false: 2}[tc.sameEntryFor]; runs.Load() != want {
				t.Fatalf("%d fills, want %d", runs.Load(), want)
			}
		})
	}
}

// outcome is what a Do returned, or the value it panicked with.
type outcome struct {
	res      []byte
	err      error
	panicked any
}

// startFill starts a Do of method "m" with params on its own goroutine
// and returns once its fill runs. The fill waits for release, then
// returns what fill does; the Do's outcome comes on done.
func startFill(ctx context.Context, m *cache.Method, params string, fill func() ([]byte, error)) (release func(), done <-chan outcome) {
	started, gate := make(chan struct{}), make(chan struct{})
	ch := make(chan outcome, 1)
	go func() {
		var o outcome
		defer func() {
			o.panicked = recover()
			ch <- o
		}()
		o.res, o.err = m.Do(ctx, "m", []byte(params), func() ([]byte, error) {
			close(started)
			<-gate
			return fill()
		})
	}()
	<-started
	return func() { close(gate) }, ch
}

// TestCache_followerWhoseContextEndsReturnsItsError: a call waiting for
// another's fill gives up with its own context; the fill goes on and is
// stored.
func TestCache_followerWhoseContextEndsReturnsItsError(t *testing.T) {
	c := cache.New(nil)
	m := c.Method(0)
	release, leader := startFill(context.Background(), m, "", func() ([]byte, error) { return []byte(`"late"`), nil })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	_, err := m.Do(ctx, "m", nil, func() ([]byte, error) {
		t.Error("a second fill ran while the first was in flight")
		return nil, nil
	})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("follower: %v, want its context's error", err)
	}
	release()
	if o := <-leader; o.err != nil {
		t.Fatal(o.err)
	}
	if res, ok := m.Lookup("m", nil); !ok || string(res) != `"late"` {
		t.Fatalf("stored %s %v", res, ok)
	}
}

// startFollowers starts n calls of method "m" with params that should
// join a fill under way, returns once they all have, and hands their
// outcomes over on the channel. misses is the cache's count before.
func startFollowers(t *testing.T, c *cache.Cache, m *cache.Method, n int, params string, fill func() ([]byte, error)) <-chan outcome {
	t.Helper()
	misses := c.Misses()
	ch := make(chan outcome, n)
	for range n {
		go func() {
			res, err := m.Do(context.Background(), "m", []byte(params), fill)
			ch <- outcome{res: res, err: err}
		}()
	}
	waitFor(t, "the followers to join", func() bool { return c.Misses() == misses+uint64(n) })
	return ch
}

// TestCache_panicInFillReleasesFollowers: the followers of a fill that
// panics get ErrFillPanicked; the panic goes on in the leader; nothing is
// stored and the next call fills again.
func TestCache_panicInFillReleasesFollowers(t *testing.T) {
	c := cache.New(nil)
	m := c.Method(0)
	release, leader := startFill(context.Background(), m, `[1]`, func() ([]byte, error) { panic("boom") })
	const n = 8
	followers := startFollowers(t, c, m, n, `[1]`, func() ([]byte, error) {
		return nil, errors.New("a follower ran its own fill")
	})
	release()
	if o := <-leader; o.panicked != "boom" {
		t.Fatalf("the leader's panic: %v", o.panicked)
	}
	for range n {
		if o := <-followers; !errors.Is(o.err, cache.ErrFillPanicked) {
			t.Fatalf("follower: %v", o.err)
		}
	}
	var runs atomic.Int64
	if res, err := m.Do(context.Background(), "m", []byte(`[1]`), fillWith(&runs, `1`)); err != nil || string(res) != `1` || runs.Load() != 1 {
		t.Fatalf("after the panic: %s %v, %d fills", res, err, runs.Load())
	}
}

// TestCache_leaderCancelledFollowersFillThemselves: when the leader's fill
// fails because its own context ended, the followers do not inherit that
// error: one of them fills, once, for all.
func TestCache_leaderCancelledFollowersFillThemselves(t *testing.T) {
	c := cache.New(nil)
	m := c.Method(0)
	ctx, cancel := context.WithCancel(context.Background())
	release, leader := startFill(ctx, m, "", func() ([]byte, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	})
	release() // the fill now waits for ctx
	const n = 8
	var runs atomic.Int64
	followers := startFollowers(t, c, m, n, "", fillWith(&runs, `"fresh"`))
	cancel()
	if o := <-leader; !errors.Is(o.err, context.Canceled) {
		t.Fatalf("leader: %v", o.err)
	}
	for range n {
		if o := <-followers; o.err != nil || string(o.res) != `"fresh"` {
			t.Fatalf("follower: %s %v", o.res, o.err)
		}
	}
	if runs.Load() != 1 {
		t.Fatalf("%d fills among the followers, want 1", runs.Load())
	}
}

// TestCache_errorsAreSharedNotStored: followers of a failing fill get its
// error; nothing is stored.
func TestCache_errorsAreSharedNotStored(t *testing.T) {
	c := cache.New(nil)
	m := c.Method(0)
	errFill := errors.New("no")
	release, leader := startFill(context.Background(), m, "", func() ([]byte, error) { return nil, errFill })
	followers := startFollowers(t, c, m, 1, "", func() ([]byte, error) { return []byte(`1`), nil })
	release()
	if o, f := <-leader, <-followers; !errors.Is(o.err, errFill) || !errors.Is(f.err, errFill) {
		t.Fatalf("leader %v, follower %v; want the fill's error for both", o.err, f.err)
	}
	if c.Len() != 0 {
		t.Fatal("an error was stored")
	}
}

func TestCache_invalidate(t *testing.T) {
	c := cache.New(nil)
	m := c.Method(0)
	fill := func(method, params string) {
		t.Helper()
		var runs atomic.Int64
		if _, err := m.Do(context.Background(), method, []byte(params), fillWith(&runs, `0`)); err != nil {
			t.Fatal(err)
		}
	}
	has := func(method, params string) bool {
		_, ok := m.Lookup(method, []byte(params))
		return ok
	}
	for _, p := range []string{`[1]`, `[2]`, `{"a":1,"b":2}`} {
		fill("a", p)
		fill("b", p)
	}
	c.InvalidateKey("a", []byte(`{ "b":2, "a":1 }`)) // any spelling of the key
	if has("a", `{"a":1,"b":2}`) || !has("b", `{"a":1,"b":2}`) || !has("a", `[1]`) || c.Len() != 5 {
		t.Fatalf("InvalidateKey removed the wrong entries (%d left)", c.Len())
	}
	c.Invalidate("a")
	if has("a", `[1]`) || has("a", `[2]`) || !has("b", `[1]`) || c.Len() != 3 {
		t.Fatalf("Invalidate removed the wrong entries (%d left)", c.Len())
	}
	c.InvalidateAll()
	if has("b", `[1]`) || c.Len() != 0 || c.Bytes() != 0 {
		t.Fatalf("InvalidateAll left %d entries, %d bytes", c.Len(), c.Bytes())
	}
	fill("b", `[1]`)
	if !has("b", `[1]`) || c.Len() != 1 || c.Evictions() != 0 {
		t.Fatalf("after InvalidateAll: %d entries, %d evictions; want 1, 0", c.Len(), c.Evictions())
	}
}

// TestCache_invalidationStopsAFillInFlightFromStoring: a fill that started
// before an invalidation answers its callers but stores nothing, and a
// call after the invalidation does not join it.
func TestCache_invalidationStopsAFillInFlightFromStoring(t *testing.T) {
	for name, invalidate := range map[string]func(c *cache.Cache){
		"method": func(c *cache.Cache) { c.Invalidate("m") },
		"key":    func(c *cache.Cache) { c.InvalidateKey("m", []byte(` [ 1 ] `)) },
		"all":    func(c *cache.Cache) { c.InvalidateAll() },
	} {
		t.Run(name, func(t *testing.T) {
			c := cache.New(nil)
			m := c.Method(0)
			release, stale := startFill(context.Background(), m, `[1]`, func() ([]byte, error) { return []byte(`"stale"`), nil })
			invalidate(c)
			var runs atomic.Int64
			if res, err := m.Do(context.Background(), "m", []byte(`[1]`), fillWith(&runs, `"fresh"`)); err != nil || string(res) != `"fresh"` {
				t.Fatalf("a call after the invalidation got %s %v", res, err)
			}
			release()
			if o := <-stale; string(o.res) != `"stale"` {
				t.Fatalf("the stale fill's caller got %s %v", o.res, o.err)
			}
			if res, ok := m.Lookup("m", []byte(`[1]`)); !ok || string(res) != `"fresh"` {
				t.Fatalf("stored %s %v, want the fresh result", res, ok)
			}
		})
	}
}

func TestCache_entriesExpireAfterTheirMethodsTTL(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := cache.New(nil)
		short, forever := c.Method(time.Second), c.Method(0)
		var runs atomic.Int64
		short.Do(context.Background(), "short", nil, fillWith(&runs, `1`))
		forever.Do(context.Background(), "forever", nil, fillWith(&runs, `2`))
		expiresAfter(t, short, "short", time.Second)
		if _, ok := forever.Lookup("forever", nil); !ok {
			t.Fatal("an entry without TTL expired")
		}
		if res, _ := short.Do(context.Background(), "short", nil, fillWith(&runs, `3`)); string(res) != `3` || runs.Load() != 3 {
			t.Fatalf("after expiry: %s after %d fills", res, runs.Load())
		}
		if c.Len() != 2 {
			t.Fatalf("%d entries: the refill must replace the expired one", c.Len())
		}
	})
}

// Expired entries leave as new ones are stored, though the cache is far
// from its bounds and their keys are never asked for again.
func TestCache_storesPurgeExpiredEntries(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := cache.New(nil)
		short, forever := c.Method(time.Second), c.Method(0)
		var runs atomic.Int64
		const n = 50
		for i := range n {
			short.Do(context.Background(), "short", []byte(strconv.Itoa(i)), fillWith(&runs, `1`))
		}
		time.Sleep(time.Second)
		for i := range n {
			forever.Do(context.Background(), "forever", []byte(strconv.Itoa(i)), fillWith(&runs, `2`))
		}
		if c.Len() != n {
			t.Fatalf("%d entries after %d stores past the others' TTL, want only those %d", c.Len(), n, n)
		}
		if c.Evictions() != n {
			t.Fatalf("%d evictions, want the %d expired entries", c.Evictions(), n)
		}
	})
}

// TestCache_boundsHoldAtEveryStep: entries and bytes stay within bounds
// under a stream of distinct keys of varied sizes.
func TestCache_boundsHoldAtEveryStep(t *testing.T) {
	for _, o := range []cache.Options{
		{MaxEntries: 50, MaxBytes: 1 << 20},      // entries bind
		{MaxEntries: 10_000, MaxBytes: 64 << 10}, // bytes bind
	} {
		c := cache.New(&o)
		m := c.Method(0)
		for i := range 2000 {
			size := 10 + i*37%3000
			res := make([]byte, size)
			for j := range res {
				res[j] = 'x'
			}
			res[0], res[size-1] = '"', '"'
			p := []byte(`[` + strconv.Itoa(i) + `]`)
			if _, err := m.Do(context.Background(), "m", p, func() ([]byte, error) { return res, nil }); err != nil {
				t.Fatal(err)
			}
			if i%3 == 0 { // some reuse, so that both queues see traffic
				m.Lookup("m", []byte(`[`+strconv.Itoa(i/2)+`]`))
			}
			if c.Len() > o.MaxEntries || c.Bytes() > o.MaxBytes {
				t.Fatalf("%+v: after %d fills, %d entries and %d bytes", o, i+1, c.Len(), c.Bytes())
			}
		}
		if c.Evictions() == 0 || c.Len() == 0 {
			t.Fatalf("%+v: %d evictions, %d entries", o, c.Evictions(), c.Len())
		}
	}
}

func TestCache_resultLargerThanMaxEntryBytesIsAnsweredNotStored(t *testing.T) {
	c := cache.New(&cache.Options{MaxEntryBytes: 1000})
	m := c.Method(0)
	big := `"` + string(make([]byte, 1000)) + `"`
	var runs atomic.Int64
	for range 2 {
		if res, err := m.Do(context.Background(), "m", nil, fillWith(&runs, big)); err != nil || len(res) != len(big) {
			t.Fatalf("%d bytes, %v", len(res), err)
		}
	}
	if runs.Load() != 2 || c.Len() != 0 {
		t.Fatalf("%d fills, %d entries; want 2, 0", runs.Load(), c.Len())
	}
}

func TestCache_countersAddUp(t *testing.T) {
	c := cache.New(nil)
	m := c.Method(0)
	var runs atomic.Int64
	for i := range 10 {
		p := []byte(`[` + strconv.Itoa(i%4) + `]`)
		if _, ok := m.Lookup("m", p); ok {
			continue
		}
		m.Do(context.Background(), "m", p, fillWith(&runs, `12`))
	}
	if c.Hits() != 6 || c.Misses() != 4 || runs.Load() != 4 || c.Len() != 4 {
		t.Fatalf("hits %d, misses %d, fills %d, entries %d; want 6, 4, 4, 4", c.Hits(), c.Misses(), runs.Load(), c.Len())
	}
	if want := 4 * (int64(len(`12`)+len(`[0]`)) + cache.EntryOverhead); c.Bytes() != want {
		t.Fatalf("%d bytes, want %d", c.Bytes(), want)
	}
}
