package cache_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpwire/mcpwire/cache"
)

// recordingTier is a second tier that records what the Cache asks of it
// and answers hit, when set, as the stored result.
type recordingTier struct {
	mu     sync.Mutex
	calls  []string
	local  cache.Local
	hit    []byte
	hitTTL time.Duration
}

func (r *recordingTier) record(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, fmt.Sprintf(format, args...))
}

func (r *recordingTier) took() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	calls := r.calls
	r.calls = nil
	return calls
}

func (r *recordingTier) Attach(l cache.Local) { r.local = l }

func (r *recordingTier) Fetch(_ context.Context, method string, params []byte, fill func() ([]byte, time.Duration, error)) ([]byte, time.Duration, error) {
	if r.hit != nil {
		r.record("hit %s %s", method, params)
		return r.hit, r.hitTTL, nil
	}
	res, ttl, err := fill()
	r.record("fill %s %s ttl=%v", method, params, ttl)
	return res, ttl, err
}

func (r *recordingTier) Invalidate(method string) { r.record("invalidate %s", method) }
func (r *recordingTier) InvalidateKey(method string, params []byte) {
	r.record("invalidate %s %s", method, params)
}
func (r *recordingTier) InvalidateAll() { r.record("invalidate all") }

func wantCalls(t *testing.T, r *recordingTier, want ...string) {
	t.Helper()
	if got := r.took(); !slices.Equal(got, want) {
		t.Fatalf("the tier was asked %q, want %q", got, want)
	}
}

func TestTier_isAskedByTheLeaderOfAMissOnly(t *testing.T) {
	r := &recordingTier{}
	c := cache.New(&cache.Options{Tier: r, MaxBytes: 1 << 20, MaxEntryBytes: cache.EntryOverhead + 64})
	m := c.Method(time.Minute)
	ctx := context.Background()
	if _, ok := m.Lookup("m", []byte(`{"b":1,"a":2}`)); ok {
		t.Fatal("a hit in an empty cache")
	}
	wantCalls(t, r) // Lookup, on the reader, never asks the tier
	fill := func() ([]byte, error) { return []byte(`"r"`), nil }
	if _, err := m.Do(ctx, "m", []byte(`{"b":1,"a":2}`), fill); err != nil {
		t.Fatal(err)
	}
	wantCalls(t, r, `fill m {"a":2,"b":1} ttl=1m0s`) // canonical params, the method's ttl
	for range 3 {
		m.Lookup("m", []byte(`{"a":2,"b":1}`))
		m.Do(ctx, "m", []byte(`{"a":2,"b":1}`), fill)
	}
	wantCalls(t, r) // hits stay local
	big := func() ([]byte, error) { return make([]byte, 100), nil }
	m.Do(ctx, "big", nil, big)
	wantCalls(t, r, "fill big  ttl=-1ns") // larger than MaxEntryBytes: not for the tier either
	m.Do(ctx, "err", nil, func() ([]byte, error) { return nil, context.DeadlineExceeded })
	wantCalls(t, r, "fill err  ttl=-1ns")
}

func TestTier_aHitIsKeptLocallyForWhatRemainsOfItsTTL(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := &recordingTier{hit: []byte(`"theirs"`), hitTTL: time.Second}
		c := cache.New(&cache.Options{Tier: r})
		m := c.Method(time.Hour)
		res, err := m.Do(context.Background(), "m", nil, func() ([]byte, error) { return []byte(`"mine"`), nil })
		if err != nil || string(res) != `"theirs"` {
			t.Fatalf("%s, %v", res, err)
		}
		if res, ok := m.Lookup("m", nil); !ok || string(res) != `"theirs"` {
			t.Fatalf("not kept locally: %s, %v", res, ok)
		}
		time.Sleep(time.Second)
		if _, ok := m.Lookup("m", nil); ok {
			t.Fatal("kept past the ttl the tier gave")
		}
	})
}

func TestTier_invalidationsGoThroughTheTierFirst(t *testing.T) {
	r := &recordingTier{}
	c := cache.New(&cache.Options{Tier: r})
	m := c.Method(0)
	ctx := context.Background()
	fill := func() ([]byte, error) { return []byte(`1`), nil }
	for _, p := range []string{`{"k":1}`, `{"k":2}`} {
		m.Do(ctx, "m", []byte(p), fill)
	}
	r.took()
	c.InvalidateKey("m", []byte(`{ "k" : 1 }`))
	c.Invalidate("m")
	c.InvalidateAll()
	wantCalls(t, r, `invalidate m {"k":1}`, "invalidate m", "invalidate all")

	// What the tier applies from other instances stays local.
	for _, p := range []string{`{"k":1}`, `{"k":2}`, `{"k":3}`} {
		m.Do(ctx, "m", []byte(p), fill)
	}
	r.took()
	r.local.InvalidateKey("m", []byte(`{"k":1}`))
	if _, ok := m.Lookup("m", []byte(`{"k":1}`)); ok {
		t.Fatal("Local.InvalidateKey left the entry")
	}
	r.local.Invalidate("m")
	if _, ok := m.Lookup("m", []byte(`{"k":2}`)); ok {
		t.Fatal("Local.Invalidate left an entry")
	}
	m.Do(ctx, "m", []byte(`{"k":4}`), fill)
	r.took()
	r.local.InvalidateAll()
	if c.Len() != 0 {
		t.Fatal("Local.InvalidateAll left entries")
	}
	wantCalls(t, r)
}
