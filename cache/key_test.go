package cache

import (
	"context"
	"testing"
)

// TestKey_collisionIsAMissNeverAWrongAnswer: an entry or a fill of another
// key under the same hash (forced here; with a seeded 64-bit hash it is
// rare) is never taken for the key's own.
func TestKey_collisionIsAMissNeverAWrongAnswer(t *testing.T) {
	c := New(nil)
	m := c.Method(0)
	s := c.getScratch()
	h, ok := c.key(s, "m", []byte(`[1]`))
	c.putScratch(s)
	if !ok {
		t.Fatal("no key")
	}
	sh := c.shard(h)
	other := &entry{hash: h, method: "m", params: []byte(`[2]`), result: []byte(`"two"`), expires: noExpiry, size: EntryOverhead}
	c.mu.Lock()
	sh.mu.Lock()
	sh.entries[h] = other
	sh.mu.Unlock()
	c.admitLocked(other, nil)
	c.mu.Unlock()
	if res, ok := m.Lookup("m", []byte(`[1]`)); ok {
		t.Fatalf("Lookup answered another key's result %s", res)
	}

	sh.mu.Lock()
	sh.flights[h] = &flight{method: "m", params: []byte(`[3]`), done: make(chan struct{})} // never finishes
	sh.mu.Unlock()
	one := func() ([]byte, error) { return []byte(`"one"`), nil }
	if res, err := m.Do(context.Background(), "m", []byte(`[1]`), one); err != nil || string(res) != `"one"` {
		t.Fatalf("Do beside another key's fill: %s %v", res, err)
	}
	sh.mu.Lock()
	clear(sh.flights)
	sh.mu.Unlock()

	if res, err := m.Do(context.Background(), "m", []byte(`[1]`), one); err != nil || string(res) != `"one"` {
		t.Fatalf("Do: %s %v", res, err)
	}
	if res, ok := m.Lookup("m", []byte(`[1]`)); !ok || string(res) != `"one"` {
		t.Fatalf("the key's own entry did not replace the other: %s %v", res, ok)
	}
	if _, ok := m.Lookup("m", []byte(`[2]`)); ok || c.Len() != 1 {
		t.Fatalf("%d entries; the replaced one must be gone", c.Len())
	}
	checkInvariants(t, c)
}
