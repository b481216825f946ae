package redisstore_test

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/cache"
	"github.com/mcpwire/mcpwire/internal/redistest"
	"github.com/mcpwire/mcpwire/redisstore"
	"github.com/redis/go-redis/v9"
)

// answered signals each command or pipeline a client had answered.
type answered struct{ ch chan struct{} }

func (a *answered) DialHook(next redis.DialHook) redis.DialHook { return next }

func (a *answered) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		defer a.signal()
		return next(ctx, cmd)
	}
}

func (a *answered) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		defer a.signal()
		return next(ctx, cmds)
	}
}

func (a *answered) signal() {
	select {
	case a.ch <- struct{}{}:
	default:
	}
}

// cacheInstance is one server's cache with its second tier in Redis.
type cacheInstance struct {
	c    *cache.Cache
	m    *cache.Method
	tier *redisstore.CacheTier
	rdb  redis.UniversalClient
	rt   *roundTrips
	done *answered // told once a command is answered, when asked
}

// tiered returns an instance's cache on srv; opts may be nil.
func tiered(t *testing.T, srv *redistest.Server, name string, opts *redisstore.CacheTierOptions) *cacheInstance {
	t.Helper()
	st := storeOn(t, srv, name)
	rt, done := &roundTrips{}, &answered{ch: make(chan struct{}, 1)}
	st.Client().AddHook(rt)
	st.Client().AddHook(done)
	tier := st.CacheTier(opts)
	t.Cleanup(tier.Close)
	c := cache.New(&cache.Options{Tier: tier})
	return &cacheInstance{c: c, m: c.Method(time.Minute), tier: tier, rdb: st.Client(), rt: rt, done: done}
}

// fillCounter is a fill that counts its runs and answers its run's number.
type fillCounter struct{ runs atomic.Int64 }

func (f *fillCounter) fill() ([]byte, error) {
	return []byte(`{"runs":` + strconv.FormatInt(f.runs.Add(1), 10) + `}`), nil
}

// tierEntryKeys returns the cache entries Redis holds.
func tierEntryKeys(t *testing.T, rdb redis.UniversalClient) []string {
	t.Helper()
	keys, err := rdb.Keys(context.Background(), redisstore.DefaultPrefix+"cache:*").Result()
	if err != nil {
		t.Fatal(err)
	}
	return keys
}

func TestCacheTier_aFillOnOneInstanceIsAHitOnAnother(t *testing.T) {
	srv := redistest.Start(t)
	a, b := tiered(t, srv, "a", nil), tiered(t, srv, "b", nil)
	ctx := context.Background()
	var f fillCounter
	params := []byte(`{"x":1,"y":[2]}`)
	// Warm the script cache and the connections, so that what is fillCounter
	// is the steady state (a fresh Redis answers the first EVALSHA of a
	// script with NOSCRIPT, then EVAL; a new connection says HELLO).
	if _, err := a.m.Do(ctx, "warm", nil, f.fill); err != nil {
		t.Fatal(err)
	}
	if _, err := b.m.Do(ctx, "warm", []byte(`{}`), f.fill); err != nil {
		t.Fatal(err)
	}
	b.c.InvalidateKey("warm", nil)
	b.c.Invalidate("warm")
	f.runs.Store(0)

	_, ma := a.rt.since(0)
	_, mb := b.rt.since(0)
	got, err := a.m.Do(ctx, "m", params, f.fill)
	if err != nil || string(got) != `{"runs":1}` {
		t.Fatalf("a: %s, %v", got, err)
	}
	if rt, _ := a.rt.since(ma); rt != 2 {
		t.Errorf("a miss that fills: %d round trips, want 2", rt)
	}
	got, err = b.m.Do(ctx, "m", []byte(`{"y":[2], "x":1}`), f.fill) // the same key, spelled otherwise
	if err != nil || string(got) != `{"runs":1}` {
		t.Fatalf("b: %s, %v", got, err)
	}
	var rt int64
	if rt, mb = b.rt.since(mb); rt != 1 {
		t.Errorf("a second-tier hit: %d round trips, want 1", rt)
	}
	for range 10 {
		if res, ok := b.m.Lookup("m", params); !ok || string(res) != `{"runs":1}` {
			t.Fatalf("b's local tier: %s, %v", res, ok)
		}
		if _, err := b.m.Do(ctx, "m", params, f.fill); err != nil {
			t.Fatal(err)
		}
	}
	if rt, mb = b.rt.since(mb); rt != 0 {
		t.Errorf("local hits: %d round trips, want 0", rt)
	}
	b.c.InvalidateKey("m", params)
	if rt, mb = b.rt.since(mb); rt != 1 {
		t.Errorf("InvalidateKey: %d round trips, want 1", rt)
	}
	b.c.Invalidate("m")
	if rt, _ = b.rt.since(mb); rt != 1 {
		t.Errorf("Invalidate: %d round trips, want 1", rt)
	}
	if runs := f.runs.Load(); runs != 1 {
		t.Errorf("the fill ran %d times, want 1", runs)
	}
}

func TestCacheTier_concurrentCallsOnThreeInstancesFillOnce(t *testing.T) {
	srv := redistest.Start(t)
	insts := []*cacheInstance{tiered(t, srv, "a", nil), tiered(t, srv, "b", nil), tiered(t, srv, "c", nil)}
	var runs atomic.Int64
	fill := func() ([]byte, error) {
		runs.Add(1)
		time.Sleep(100 * time.Millisecond) // long enough for the others to find the lock
		return []byte(`"once"`), nil
	}
	const perInstance = 10
	start := make(chan struct{})
	var wg sync.WaitGroup
	errs := make(chan error, 3*perInstance)
	for _, in := range insts {
		for range perInstance {
			wg.Go(func() {
				<-start
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				res, err := in.m.Do(ctx, "slow", []byte(`{"k":"v"}`), fill)
				if err == nil && string(res) != `"once"` {
					err = errors.New("answer " + string(res))
				}
				errs <- err
			})
		}
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if n := runs.Load(); n != 1 {
		t.Fatalf("%d calls over 3 instances ran the fill %d times, want 1", 3*perInstance, n)
	}
}

func TestCacheTier_honoursTheResultsTTL(t *testing.T) {
	srv := redistest.Start(t)
	a, b := tiered(t, srv, "a", nil), tiered(t, srv, "b", nil)
	m := a.c.Method(0)
	ctx := context.Background()
	var runs atomic.Int64
	fill := func() ([]byte, time.Duration, error) {
		runs.Add(1)
		return []byte(`"short"`), 300 * time.Millisecond, nil
	}
	if _, err := m.DoFor(ctx, "m", nil, fill); err != nil {
		t.Fatal(err)
	}
	keys := tierEntryKeys(t, a.rdb)
	if len(keys) != 1 {
		t.Fatalf("entries in Redis: %q", keys)
	}
	pttl := a.rdb.PTTL(ctx, keys[0]).Val()
	if pttl <= 0 || pttl > 300*time.Millisecond {
		t.Fatalf("the entry lives %v in Redis; the result said 300ms", pttl)
	}
	waitFor(t, "the entry expires in Redis", func() bool { return len(tierEntryKeys(t, a.rdb)) == 0 })
	if _, err := b.c.Method(0).DoFor(ctx, "m", nil, fill); err != nil {
		t.Fatal(err)
	}
	if n := runs.Load(); n != 2 {
		t.Fatalf("after the result's ttl the fill ran %d times in all, want 2", n)
	}
	// A result fresh for no time is answered but not stored anywhere;
	// the next call of its key runs at once, with no round trip.
	stale := func() ([]byte, time.Duration, error) { return []byte(`1`), 0, nil }
	if _, err := m.DoFor(ctx, "stale", nil, stale); err != nil {
		t.Fatal(err)
	}
	if keys := tierEntryKeys(t, a.rdb); len(keys) != 1 {
		t.Fatalf("entries in Redis: %q, want only b's", keys)
	}
	_, mark := a.rt.since(0)
	if _, err := m.DoFor(ctx, "stale", nil, stale); err != nil {
		t.Fatal(err)
	}
	if rt, _ := a.rt.since(mark); rt != 0 {
		t.Errorf("a key whose result is not for keeping: %d round trips, want 0", rt)
	}
}

func TestCacheTier_invalidationReachesEveryInstance(t *testing.T) {
	for _, tc := range []struct {
		name       string
		invalidate func(c *cache.Cache)
	}{
		{"method", func(c *cache.Cache) { c.Invalidate("m") }},
		{"key", func(c *cache.Cache) { c.InvalidateKey("m", []byte(`{ "k" : 1 }`)) }},
		{"all", func(c *cache.Cache) { c.InvalidateAll() }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := redistest.Start(t)
			a, b := tiered(t, srv, "a", nil), tiered(t, srv, "b", nil)
			ctx := context.Background()
			var f fillCounter
			params := []byte(`{"k":1}`)
			for _, in := range []*cacheInstance{a, b} { // a fills, b hits the second tier
				if _, err := in.m.Do(ctx, "m", params, f.fill); err != nil {
					t.Fatal(err)
				}
				if _, ok := in.m.Lookup("m", params); !ok {
					t.Fatalf("not stored locally")
				}
			}
			tc.invalidate(b.c)
			if _, ok := b.m.Lookup("m", params); ok {
				t.Fatal("b's own entry is still there")
			}
			waitFor(t, "a's local entry is dropped", func() bool {
				_, ok := a.m.Lookup("m", params)
				return !ok
			})
			got, err := a.m.Do(ctx, "m", params, f.fill)
			if err != nil || string(got) != `{"runs":2}` {
				t.Fatalf("after the invalidation: %s, %v; want a new fill (runs 2)", got, err)
			}
			got, err = b.m.Do(ctx, "m", params, f.fill)
			if err != nil || string(got) != `{"runs":2}` {
				t.Fatalf("b after a's new fill: %s, %v; want its result", got, err)
			}
		})
	}
}

func TestCacheTier_invalidationStopsAFillUnderWay(t *testing.T) {
	srv := redistest.Start(t)
	a, b := tiered(t, srv, "a", nil), tiered(t, srv, "b", nil)
	ctx := context.Background()
	started, release := make(chan struct{}), make(chan struct{})
	done := make(chan error, 1)
	go func() {
		_, err := a.m.Do(ctx, "m", nil, func() ([]byte, error) {
			close(started)
			<-release
			return []byte(`"stale"`), nil
		})
		done <- err
	}()
	<-started
	b.c.Invalidate("m")
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if keys := tierEntryKeys(t, a.rdb); len(keys) != 0 {
		t.Fatalf("a fill that began before the invalidation stored %q", keys)
	}
	got, err := b.m.Do(ctx, "m", nil, func() ([]byte, error) { return []byte(`"fresh"`), nil })
	if err != nil || string(got) != `"fresh"` {
		t.Fatalf("%s, %v", got, err)
	}
}

// callWhileLocked calls m on in (its fill answers "b"), once it has found
// another instance's lock, and returns its answer (or error) to come.
func callWhileLocked(t *testing.T, in *cacheInstance) <-chan string {
	t.Helper()
	select { // drop a stale signal
	case <-in.done.ch:
	default:
	}
	res := make(chan string, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		b, err := in.m.Do(ctx, "m", nil, func() ([]byte, error) { return []byte(`"b"`), nil })
		if err != nil {
			b = []byte(err.Error())
		}
		res <- string(b)
	}()
	select { // its first look-up found the lock
	case <-in.done.ch:
	case <-time.After(5 * time.Second):
		t.Fatal("after 5s the call has not looked the key up")
	}
	return res
}

func TestCacheTier_aCancelledLockHolderLetsAnotherFill(t *testing.T) {
	srv := redistest.Start(t)
	// A lock that outlives the test's bound: only its release lets b in.
	opts := &redisstore.CacheTierOptions{LockTTL: time.Minute}
	a, b := tiered(t, srv, "a", opts), tiered(t, srv, "b", opts)
	actx, cancel := context.WithCancel(context.Background())
	started := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		_, err := a.m.Do(actx, "m", nil, func() ([]byte, error) {
			close(started)
			<-actx.Done()
			return nil, actx.Err()
		})
		done <- err
	}()
	<-started
	bres := callWhileLocked(t, b)
	start := time.Now()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("a: %v", err)
	}
	if got := <-bres; got != `"b"` {
		t.Fatalf("b: %s", got)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("b filled %v after a's cancellation", d)
	}
}

func TestCacheTier_aLongFillKeepsItsLock(t *testing.T) {
	srv := redistest.Start(t)
	opts := &redisstore.CacheTierOptions{LockTTL: 150 * time.Millisecond}
	a, b := tiered(t, srv, "a", opts), tiered(t, srv, "b", opts)
	var runs atomic.Int64
	fill := func() ([]byte, error) {
		if runs.Add(1) == 1 {
			time.Sleep(time.Second) // several times LockTTL: the lock is renewed
		}
		return []byte(`"r"`), nil
	}
	started := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		_, err := a.m.Do(context.Background(), "m", nil, func() ([]byte, error) {
			close(started)
			return fill()
		})
		done <- err
	}()
	<-started
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := b.m.Do(ctx, "m", nil, fill); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if n := runs.Load(); n != 1 {
		t.Fatalf("the fill ran %d times: its lock expired while it ran", n)
	}
}

// A deadline shorter than the store's timeout and a Redis that does not
// answer: the look-up gives up at half the deadline, and the fill runs
// here in the other half.
func TestCacheTier_aSilentRedisLeavesTimeToFill(t *testing.T) {
	srv := redistest.Start(t)
	a := tiered(t, srv, "a", nil)
	ctx := context.Background()
	if _, err := a.m.Do(ctx, "warm", nil, func() ([]byte, error) { return []byte(`1`), nil }); err != nil {
		t.Fatal(err)
	}
	pause := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	defer pause.Close()
	// CLIENT PAUSE holds every client's commands for 3 s (this one's too,
	// hence no wait for its answer beyond its own).
	pctx, pcancel := context.WithTimeout(ctx, 500*time.Millisecond)
	_ = pause.Do(pctx, "CLIENT", "PAUSE", "3000", "ALL").Err()
	pcancel()
	dctx, cancel := context.WithTimeout(ctx, 400*time.Millisecond)
	defer cancel()
	res, err := a.m.Do(dctx, "m", nil, func() ([]byte, error) { return []byte(`"here"`), nil })
	if err != nil || string(res) != `"here"` {
		t.Fatalf("%s, %v", res, err)
	}
}

func TestCacheTier_aDeadLockHoldersLockExpires(t *testing.T) {
	srv := redistest.Start(t)
	opts := &redisstore.CacheTierOptions{LockTTL: 300 * time.Millisecond}
	a, b := tiered(t, srv, "a", opts), tiered(t, srv, "b", opts)
	started, release := make(chan struct{}), make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		a.m.Do(context.Background(), "m", nil, func() ([]byte, error) {
			close(started)
			<-release
			return []byte(`"a"`), nil
		})
	}()
	<-started
	// a's instance is cut off from Redis: its renewals and release fail,
	// as if it had died holding the lock.
	a.rdb.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	got, err := b.m.Do(ctx, "m", nil, func() ([]byte, error) { return []byte(`"b"`), nil })
	close(release)
	<-done
	if err != nil || string(got) != `"b"` {
		t.Fatalf("b: %s, %v", got, err)
	}
}

func TestCacheTier_redisDownServesLocallyAndRecovers(t *testing.T) {
	srv := redistest.Start(t)
	opts := &redisstore.CacheTierOptions{RetryInterval: 50 * time.Millisecond}
	a, b := tiered(t, srv, "a", opts), tiered(t, srv, "b", opts)
	ctx := context.Background()
	var f fillCounter
	if _, err := a.m.Do(ctx, "m", []byte(`{"k":"hit"}`), f.fill); err != nil {
		t.Fatal(err)
	}
	srv.Kill()
	start := time.Now()
	if res, ok := a.m.Lookup("m", []byte(`{"k":"hit"}`)); !ok || string(res) != `{"runs":1}` {
		t.Fatalf("a local hit with Redis down: %s, %v", res, ok)
	}
	for i := range 3 { // misses: filled here, stored here
		params := []byte(`{"k":` + strconv.Itoa(i) + `}`)
		dctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		res, err := a.m.Do(dctx, "m", params, f.fill)
		cancel()
		if err != nil || len(res) == 0 {
			t.Fatalf("a miss with Redis down: %s, %v", res, err)
		}
		if _, ok := a.m.Lookup("m", params); !ok {
			t.Fatal("a miss filled with Redis down is not kept locally")
		}
	}
	a.c.InvalidateKey("m", []byte(`{"k":0}`))
	if _, ok := a.m.Lookup("m", []byte(`{"k":0}`)); ok {
		t.Fatal("InvalidateKey with Redis down left the local entry")
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("with Redis down, a's calls took %v", d)
	}

	srv.Restart()
	// Recovered without re-creating anything: a fill on a is a hit on b.
	var other fillCounter
	var key []byte
	waitFor(t, "a's tier is back", func() bool {
		key = []byte(`{"n":` + strconv.FormatInt(other.runs.Load(), 10) + `}`) // a new key each time: a miss
		if _, err := a.m.Do(ctx, "after", key, other.fill); err != nil {
			t.Fatal(err)
		}
		return len(tierEntryKeys(t, b.rdb)) > 0
	})
	runs := other.runs.Load()
	got, err := b.m.Do(ctx, "after", key, other.fill)
	if err != nil || other.runs.Load() != runs {
		t.Fatalf("b after recovery: %s, %v; the fill ran again", got, err)
	}
	// The outage's end dropped a's local entries: invalidations made
	// meanwhile elsewhere could not reach it.
	if _, ok := a.m.Lookup("m", []byte(`{"k":"hit"}`)); ok {
		t.Error("a kept its local entries across the outage")
	}
}

func TestCacheTier_aPanickingFillReleasesItsLock(t *testing.T) {
	srv := redistest.Start(t)
	opts := &redisstore.CacheTierOptions{LockTTL: time.Minute}
	a, b := tiered(t, srv, "a", opts), tiered(t, srv, "b", opts)
	started, release := make(chan struct{}), make(chan struct{})
	recovered := make(chan any, 1)
	go func() {
		defer func() { recovered <- recover() }()
		a.m.Do(context.Background(), "m", nil, func() ([]byte, error) {
			close(started)
			<-release
			panic("boom")
		})
	}()
	<-started
	bres := callWhileLocked(t, b)
	close(release)
	if r := <-recovered; r != "boom" {
		t.Fatalf("a's panic: %v", r)
	}
	if got := <-bres; got != `"b"` {
		t.Fatalf("b: %s", got)
	}
}

// An instance started while Redis is down subscribes to the others'
// invalidations once Redis answers.
func TestCacheTier_startedWithRedisDownSubscribesLater(t *testing.T) {
	srv := redistest.Start(t)
	b := tiered(t, srv, "b", nil)
	srv.Kill()
	a := tiered(t, srv, "a", &redisstore.CacheTierOptions{RetryInterval: 20 * time.Millisecond})
	srv.Restart()
	ctx := context.Background()
	var f fillCounter
	waitFor(t, "a reaches Redis", func() bool {
		n := a.rt.n.Load()
		a.m.Do(ctx, "probe", []byte(`{"n":`+strconv.FormatInt(f.runs.Load(), 10)+`}`), f.fill)
		return a.rt.n.Load() > n && len(tierEntryKeys(t, a.rdb)) > 0
	})
	if _, err := a.m.Do(ctx, "m", nil, f.fill); err != nil {
		t.Fatal(err)
	}
	b.c.Invalidate("m")
	waitFor(t, "a hears b's invalidation", func() bool {
		_, ok := a.m.Lookup("m", nil)
		return !ok
	})
}

// An invalidation that cannot reach Redis (it does not answer) is made
// there, as an InvalidateAll, when it answers again: no instance then
// finds the entries it should have removed.
func TestCacheTier_aLostInvalidationIsMadeWhenRedisIsBack(t *testing.T) {
	srv := redistest.Start(t)
	opts := &redisstore.CacheTierOptions{RetryInterval: 20 * time.Millisecond}
	a, b := tiered(t, srv, "a", opts), tiered(t, srv, "b", opts)
	ctx := context.Background()
	var f fillCounter
	if _, err := b.m.Do(ctx, "m", nil, f.fill); err != nil { // in Redis now
		t.Fatal(err)
	}
	pause := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	defer pause.Close()
	if err := pause.Do(ctx, "CLIENT", "PAUSE", "1500", "ALL").Err(); err != nil {
		t.Fatal(err)
	}
	a.c.Invalidate("m") // times out: lost
	var other fillCounter
	waitFor(t, "a reaches Redis again", func() bool {
		_, mark := a.rt.since(0)
		a.m.Do(ctx, "probe", []byte(`{"n":`+strconv.FormatInt(other.runs.Load(), 10)+`}`), other.fill)
		n, _ := a.rt.since(mark)
		return n > 0 && len(tierEntryKeys(t, a.rdb)) > 1
	})
	c := tiered(t, srv, "c", opts)
	got, err := c.m.Do(ctx, "m", nil, f.fill)
	if err != nil || string(got) != `{"runs":2}` {
		t.Fatalf("c: %s, %v; want a new fill, not the entry a invalidated", got, err)
	}
}

// An instance that missed an invalidation's message (its subscription
// was down) learns of it from the generations its next look-up finds,
// and drops its own entries of the method.
func TestCacheTier_aMissedInvalidationIsSeenInTheGenerations(t *testing.T) {
	srv := redistest.Start(t)
	a, b := tiered(t, srv, "a", nil), tiered(t, srv, "b", nil)
	ctx := context.Background()
	var f fillCounter
	if _, err := a.m.Do(ctx, "m", []byte(`{"k":1}`), f.fill); err != nil {
		t.Fatal(err)
	}
	a.tier.Close() // a hears no more messages
	b.c.Invalidate("m")
	if _, ok := a.m.Lookup("m", []byte(`{"k":1}`)); !ok {
		t.Fatal("a heard the invalidation after all; the test proves nothing")
	}
	if _, err := a.m.Do(ctx, "m", []byte(`{"k":2}`), f.fill); err != nil {
		t.Fatal(err)
	}
	if _, ok := a.m.Lookup("m", []byte(`{"k":1}`)); ok {
		t.Fatal("a's look-up found newer generations and kept its entries of the method")
	}
}
