package redisstore_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/internal/redistest"
	"github.com/mcpwire/mcpwire/mcp/streamable"
)

// storeImpls are the implementations the contract tests run on: the
// in-memory defaults and the Redis ones.
func storeImpls(t *testing.T) []struct {
	name     string
	sessions streamable.SessionStore
	events   func(maxEvents, maxBytes int) streamable.EventStore
} {
	srv := redistest.Start(t)
	st := storeOn(t, srv, "a")
	return []struct {
		name     string
		sessions streamable.SessionStore
		events   func(maxEvents, maxBytes int) streamable.EventStore
	}{
		{"memory", streamable.NewMemorySessionStore(), func(n, b int) streamable.EventStore { return streamable.NewMemoryEventStore(n, b) }},
		{"redis", st.SessionStore(), func(n, b int) streamable.EventStore { return st.EventStore(n, b) }},
	}
}

func seqs(evs []streamable.StoredEvent) string {
	s := ""
	for _, e := range evs {
		s += fmt.Sprintf("%d:%s ", e.Seq, e.Data)
	}
	return s
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestSessionStore_contract(t *testing.T) {
	ctx := context.Background()
	for _, impl := range storeImpls(t) {
		t.Run(impl.name, func(t *testing.T) {
			m := impl.sessions
			if _, err := m.Load(ctx, "nobody"); !errors.Is(err, streamable.ErrSessionNotFound) {
				t.Fatalf("Load of an unknown session: %v", err)
			}
			if err := m.Touch(ctx, "nobody", time.Minute); !errors.Is(err, streamable.ErrSessionNotFound) {
				t.Fatalf("Touch of an unknown session: %v", err)
			}
			must(t, m.Create(ctx, "s1", []byte("state\x00bytes"), time.Minute))
			must(t, m.Create(ctx, "forever", []byte("f"), 0))
			if st, err := m.Load(ctx, "s1"); err != nil || string(st) != "state\x00bytes" {
				t.Fatalf("Load: %q, %v", st, err)
			}
			must(t, m.Touch(ctx, "s1", time.Minute))
			must(t, m.Touch(ctx, "forever", 0))
			must(t, m.Delete(ctx, "s1"))
			must(t, m.Delete(ctx, "s1")) // deleting an unknown one is no error
			if _, err := m.Load(ctx, "s1"); !errors.Is(err, streamable.ErrSessionNotFound) {
				t.Fatalf("Load after Delete: %v", err)
			}
			if _, err := m.Load(ctx, "forever"); err != nil {
				t.Fatalf("a session with no expiry: %v", err)
			}
			must(t, m.Create(ctx, "brief", nil, 50*time.Millisecond))
			deadline := time.Now().Add(5 * time.Second)
			for _, err := m.Load(ctx, "brief"); !errors.Is(err, streamable.ErrSessionNotFound); _, err = m.Load(ctx, "brief") {
				if time.Now().After(deadline) {
					t.Fatalf("a session past its TTL is still there: %v", err)
				}
				time.Sleep(10 * time.Millisecond)
			}
		})
	}
}

func TestEventStore_contract(t *testing.T) {
	ctx := context.Background()
	for _, impl := range storeImpls(t) {
		t.Run(impl.name, func(t *testing.T) {
			must(t, impl.sessions.Create(ctx, "s1", nil, time.Minute))
			m := impl.events(4, 1<<10)
			data := []byte("a")
			for i := uint64(1); i <= 3; i++ {
				must(t, m.Append(ctx, "s1", "x", i, data))
				data[0]++ // the store keeps its own copy
			}
			must(t, m.Append(ctx, "s1", "y", 1, []byte("y1")))
			must(t, m.Append(ctx, "s2", "x", 1, []byte("other session")))
			if got, err := m.After(ctx, "s1", "x", 1); err != nil || seqs(got) != "2:b 3:c " {
				t.Fatalf("After 1: %q, %v", seqs(got), err)
			}
			if got, _ := m.After(ctx, "s1", "nope", 0); len(got) != 0 {
				t.Fatalf("an unknown stream: %q", seqs(got))
			}
			if got, _ := m.After(ctx, "s1", "y", 0); seqs(got) != "1:y1 " {
				t.Fatalf("stream y: %q", seqs(got))
			}
			must(t, m.Forget(ctx, "s1"))
			for _, stream := range []string{"x", "y"} {
				if got, _ := m.After(ctx, "s1", stream, 0); len(got) != 0 {
					t.Fatalf("forgotten: %q", seqs(got))
				}
			}
			if got, _ := m.After(ctx, "s2", "x", 0); seqs(got) != "1:other session " {
				t.Fatalf("the other session: %q", seqs(got))
			}

			// The bounds, on one stream (where per-stream and per-session agree).
			for i := uint64(1); i <= 5; i++ {
				must(t, m.Append(ctx, "s3", "x", i, fmt.Appendf(nil, "%d", i)))
			}
			if got, _ := m.After(ctx, "s3", "x", 0); seqs(got) != "2:2 3:3 4:4 5:5 " {
				t.Fatalf("count bound: %q", seqs(got))
			}
			b := impl.events(100, 10)
			for i := uint64(1); i <= 4; i++ {
				must(t, b.Append(ctx, "s4", "x", i, []byte("1234")))
			}
			must(t, b.Append(ctx, "s5", "x", 1, make([]byte, 64)))
			if got, _ := b.After(ctx, "s4", "x", 0); seqs(got) != "3:1234 4:1234 " {
				t.Fatalf("bytes bound: %q", seqs(got))
			}
			if got, _ := b.After(ctx, "s5", "x", 0); len(got) != 1 || len(got[0].Data) != 64 {
				t.Fatalf("the newest event is kept whatever its size: %q", seqs(got))
			}
		})
	}
}
