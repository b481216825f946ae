//go:build !race

package cache_test

import (
	"context"
	"testing"

	"github.com/mcpwire/mcpwire/cache"
)

// The hit path allocates nothing: the canonical key is written into pooled
// scratch memory, the shard is read under its read lock, and the session
// copies the stored bytes into its output after the new request's id.

func TestAllocs_lookupHit(t *testing.T) {
	c := cache.New(nil)
	m := c.Method(0)
	params := []byte(`{"b":[1,2,{"y":"\u00e9","x":null}],"a":"s"}`)
	m.Do(context.Background(), "m", params, func() ([]byte, error) { return []byte(`"r"`), nil })
	n := testing.AllocsPerRun(1000, func() {
		if _, ok := m.Lookup("m", params); !ok {
			t.Fatal("miss")
		}
	})
	if n != 0 {
		t.Fatalf("%.1f allocations per hit, want 0", n)
	}
}

func TestAllocs_hitThroughASession(t *testing.T) {
	c := cache.New(nil)
	roundTrip := session(t, listRouter(c, 4))
	req := listRequest(7)
	want := len(roundTrip(req))
	n := testing.AllocsPerRun(1000, func() {
		if got := roundTrip(req); len(got) != want {
			t.Fatalf("%s", got)
		}
	})
	if n != 0 || c.Misses() != 1 {
		t.Fatalf("%.1f allocations per hit end to end, %d misses; want 0, 1", n, c.Misses())
	}
}
