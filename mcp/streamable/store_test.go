package streamable_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpwire/mcpwire/mcp/streamable"
)

func seqs(evs []streamable.StoredEvent) string {
	s := ""
	for _, e := range evs {
		s += fmt.Sprintf("%d:%s ", e.Seq, e.Data)
	}
	return s
}

func TestMemoryEventStore_keepsStreamsApartAndBoundsASession(t *testing.T) {
	ctx := context.Background()
	m := streamable.NewMemoryEventStore(4, 1<<10)
	data := []byte("a")
	for i := uint64(1); i <= 3; i++ {
		must(t, m.Append(ctx, "s1", "x", i, data))
		data[0]++ // the store keeps its own copy
	}
	must(t, m.Append(ctx, "s1", "y", 1, []byte("y1")))
	must(t, m.Append(ctx, "s2", "x", 1, []byte("other session")))
	got, err := m.After(ctx, "s1", "x", 1)
	if err != nil || seqs(got) != "2:b 3:c " {
		t.Fatalf("%q, %v", seqs(got), err)
	}
	must(t, m.Append(ctx, "s1", "x", 4, []byte("d"))) // the fifth of s1: the oldest goes
	if got, _ := m.After(ctx, "s1", "x", 0); seqs(got) != "2:b 3:c 4:d " {
		t.Fatalf("after the bound: %q", seqs(got))
	}
	if got, _ := m.After(ctx, "s2", "x", 0); seqs(got) != "1:other session " {
		t.Fatalf("the other session: %q", seqs(got))
	}
	must(t, m.Forget(ctx, "s1"))
	if got, _ := m.After(ctx, "s1", "y", 0); len(got) != 0 {
		t.Fatalf("forgotten: %q", seqs(got))
	}

	b := streamable.NewMemoryEventStore(100, 10) // bytes bound
	for i := uint64(1); i <= 4; i++ {
		must(t, b.Append(ctx, "s", "x", i, []byte("1234")))
	}
	if got, _ := b.After(ctx, "s", "x", 0); seqs(got) != "3:1234 4:1234 " {
		t.Fatalf("bytes bound: %q", seqs(got))
	}
}

// In virtual time (synctest): on a loaded machine a 20 ms sleep may
// outlast the 50 ms TTL it was meant to stay within.
func TestMemorySessionStore_expiresUntouchedSessions(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		m := streamable.NewMemorySessionStore()
		must(t, m.Create(ctx, "a", []byte("state"), 50*time.Millisecond))
		must(t, m.Create(ctx, "forever", nil, 0))
		if st, err := m.Load(ctx, "a"); err != nil || string(st) != "state" {
			t.Fatalf("%q, %v", st, err)
		}
		for range 4 {
			time.Sleep(20 * time.Millisecond)
			must(t, m.Touch(ctx, "a", 50*time.Millisecond))
		}
		time.Sleep(80 * time.Millisecond)
		if _, err := m.Load(ctx, "a"); !errors.Is(err, streamable.ErrSessionNotFound) {
			t.Fatalf("untouched: %v", err)
		}
		if err := m.Touch(ctx, "a", time.Minute); !errors.Is(err, streamable.ErrSessionNotFound) {
			t.Fatalf("touching an expired session: %v", err)
		}
		if _, err := m.Load(ctx, "forever"); err != nil {
			t.Fatal(err)
		}
		must(t, m.Delete(ctx, "forever"))
		must(t, m.Delete(ctx, "never was"))
		if _, err := m.Load(ctx, "forever"); !errors.Is(err, streamable.ErrSessionNotFound) {
			t.Fatalf("deleted: %v", err)
		}
	})
}
