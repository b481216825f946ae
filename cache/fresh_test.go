package cache_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpwire/mcpwire/cache"
)

// fillFor is a DoFor fill that counts its runs and gives result with ttl.
func fillFor(runs *atomic.Int64, result string, ttl time.Duration) func() ([]byte, time.Duration, error) {
	return func() ([]byte, time.Duration, error) {
		runs.Add(1)
		return []byte(result), ttl, nil
	}
}

// expiresAfter sleeps (under synctest) until ttl has passed, checking
// that method's entry is answered until the last moment and not at ttl.
func expiresAfter(t *testing.T, m *cache.Method, method string, ttl time.Duration) {
	t.Helper()
	time.Sleep(ttl - time.Millisecond)
	if _, ok := m.Lookup(method, nil); !ok {
		t.Fatalf("%s: expired before its TTL", method)
	}
	time.Sleep(time.Millisecond)
	if _, ok := m.Lookup(method, nil); ok {
		t.Fatalf("%s: still answered at its TTL", method)
	}
}

// DoFor's entries live as long as their fill said, whatever the Method's
// time to live; a result fresh for no time is answered and not stored.
func TestCache_doForEntriesLiveTheTTLTheirFillGave(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := cache.New(nil)
		m := c.Method(time.Hour)
		ctx := context.Background()
		var runs atomic.Int64
		m.DoFor(ctx, "a", nil, fillFor(&runs, `"a"`, 1500*time.Millisecond))
		m.DoFor(ctx, "b", nil, fillFor(&runs, `"b"`, 3*time.Second))
		for _, ttl := range []time.Duration{0, -time.Second} {
			if res, _ := m.DoFor(ctx, "stale", nil, fillFor(&runs, `"s"`, ttl)); string(res) != `"s"` {
				t.Fatalf("ttl %v: answered %s", ttl, res)
			}
			if _, ok := m.Lookup("stale", nil); ok {
				t.Fatalf("a result fresh for %v was stored", ttl)
			}
		}
		expiresAfter(t, m, "a", 1500*time.Millisecond)
		if _, ok := m.Lookup("b", nil); !ok {
			t.Fatal("b: expired with a's TTL")
		}
		if res, _ := m.DoFor(ctx, "a", nil, fillFor(&runs, `"a2"`, time.Second)); string(res) != `"a2"` || runs.Load() != 5 {
			t.Fatalf("after expiry: %s after %d fills", res, runs.Load())
		}
		time.Sleep(1500 * time.Millisecond)
		if _, ok := m.Lookup("b", nil); ok {
			t.Fatal("b: still answered at its TTL")
		}
	})
}

// Callers that join a fill whose result is not to be stored get its
// result; the next caller runs a fill of its own.
func TestCache_doForFollowersShareAResultNotStored(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := cache.New(nil).Method(0)
		release := make(chan struct{})
		var runs atomic.Int64
		fill := func() ([]byte, time.Duration, error) {
			runs.Add(1)
			<-release
			return []byte(`1`), 0, nil
		}
		var wg sync.WaitGroup
		got := make([]string, 3)
		for i := range got {
			wg.Go(func() {
				res, _ := m.DoFor(context.Background(), "m", nil, fill)
				got[i] = string(res)
			})
		}
		synctest.Wait() // one leads, two follow
		close(release)
		wg.Wait()
		if got[0] != "1" || got[1] != "1" || got[2] != "1" || runs.Load() != 1 {
			t.Fatalf("got %q after %d fills, want 1 fill for all", got, runs.Load())
		}
		m.DoFor(context.Background(), "m", nil, fill)
		if runs.Load() != 2 {
			t.Fatalf("%d fills: the result was stored", runs.Load())
		}
	})
}
