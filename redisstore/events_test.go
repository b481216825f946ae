package redisstore_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/internal/redistest"
	"github.com/mcpwire/mcpwire/mcp/streamable"
)

func TestEventStore_publishNumbersAcrossInstancesAndDropsRepeats(t *testing.T) {
	srv := redistest.Start(t)
	a, b := storeOn(t, srv, "a"), storeOn(t, srv, "b")
	ctx := context.Background()
	must(t, a.SessionStore().Create(ctx, "s", nil, time.Minute))
	ea, eb := a.EventStore(0, 0), b.EventStore(0, 0)

	last, wake, stop, err := ea.Watch(ctx, "s", "st")
	must(t, err)
	defer stop()
	if last != 0 {
		t.Fatalf("a new stream's last event: %d", last)
	}
	var mu sync.Mutex
	var got []uint64
	var wg sync.WaitGroup
	for i := range 20 {
		es := ea
		if i%2 == 1 {
			es = eb
		}
		wg.Go(func() {
			n, err := es.Publish(ctx, "s", "st", fmt.Appendf(nil, "%d", i), "")
			if err != nil {
				t.Error(err)
			}
			mu.Lock()
			got = append(got, n)
			mu.Unlock()
		})
	}
	wg.Wait()
	slices.Sort(got)
	for i, n := range got {
		if n != uint64(i+1) {
			t.Fatalf("numbers of concurrent publishes: %v", got)
		}
	}
	select {
	case <-wake:
	case <-time.After(5 * time.Second):
		t.Fatal("the watch was not woken")
	}
	evs, err := eb.After(ctx, "s", "st", 18)
	if err != nil || len(evs) != 2 || evs[0].Seq != 19 || evs[1].Seq != 20 {
		t.Fatalf("After 18: %q, %v", seqs(evs), err)
	}

	// A repeat of a dedup key within the window is dropped, on any
	// instance; another key, or another stream, is not.
	note := []byte(`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`)
	if n, err := ea.Publish(ctx, "s", "st", note, "k1"); err != nil || n != 21 {
		t.Fatalf("first: %d, %v", n, err)
	}
	if n, err := eb.Publish(ctx, "s", "st", note, "k1"); err != nil || n != 0 {
		t.Fatalf("a repeat: %d, %v", n, err)
	}
	if n, err := eb.Publish(ctx, "s", "other", note, "k1"); err != nil || n != 1 {
		t.Fatalf("another stream: %d, %v", n, err)
	}
	if n, err := eb.Publish(ctx, "s", "st", note, "k2"); err != nil || n != 22 {
		t.Fatalf("another key: %d, %v", n, err)
	}
	if last, _, stop2, err := eb.Watch(ctx, "s", "st"); err != nil || last != 22 {
		t.Fatalf("Watch's last: %d, %v", last, err)
	} else {
		stop2()
	}
}

// Every key has a TTL, the events' follows their session's (Touch renews
// both), and Forget drops them.
func TestEventStore_keysExpireWithTheirSession(t *testing.T) {
	srv := redistest.Start(t)
	st := storeOn(t, srv, "a")
	ctx := context.Background()
	rdb := st.Client()
	ss, es := st.SessionStore(), st.EventStore(0, 0)
	must(t, ss.Create(ctx, "s", []byte("init"), time.Hour))
	must(t, es.Append(ctx, "s", "post", 1, []byte("x")))
	if _, err := es.Publish(ctx, "s", "sa", []byte("y"), "dk"); err != nil {
		t.Fatal(err)
	}
	must(t, ss.Create(ctx, "short", nil, 10*time.Second))
	must(t, es.Append(ctx, "short", "p", 1, []byte("z")))
	must(t, ss.Touch(ctx, "short", 2*time.Hour)) // longer than the first's

	keys, err := rdb.Keys(ctx, "*").Result()
	must(t, err)
	if len(keys) < 9 {
		t.Fatalf("keys: %v", keys)
	}
	for _, k := range keys {
		if !strings.HasPrefix(k, st.Prefix()) {
			t.Errorf("key %q lacks the prefix", k)
		}
		ttl, err := rdb.PTTL(ctx, k).Result()
		must(t, err)
		want := time.Hour
		switch {
		case strings.HasSuffix(k, ":dk"):
			want = time.Second
		case strings.Contains(k, "short"):
			want = 2 * time.Hour
		}
		if ttl <= 0 || ttl > want || ttl < want-time.Minute {
			t.Errorf("key %q: TTL %v, want about %v", k, ttl, want)
		}
	}
	must(t, es.Forget(ctx, "s"))
	must(t, ss.Delete(ctx, "s"))
	left, _ := rdb.Keys(ctx, st.Prefix()+"*:s:*").Result()
	for _, k := range left {
		if !strings.Contains(k, "dedup") {
			t.Errorf("left after Forget: %q", k)
		}
	}
}

// A long session's POST streams do not pile up: past maxStreams the
// least recently appended one goes, never a stream the store numbers.
func TestEventStore_boundsTheStreamsOfASession(t *testing.T) {
	srv := redistest.Start(t)
	st := storeOn(t, srv, "a")
	ctx := context.Background()
	es := st.EventStore(0, 0)
	if _, err := es.Publish(ctx, "s", "standalone", []byte("first"), ""); err != nil {
		t.Fatal(err)
	}
	for i := range 100 {
		must(t, es.Append(ctx, "s", fmt.Sprint("post", i), 1, []byte("x")))
	}
	if evs, _ := es.After(ctx, "s", "standalone", 0); seqs(evs) != "1:first " {
		t.Fatalf("the standalone stream: %q", seqs(evs))
	}
	if evs, _ := es.After(ctx, "s", "post99", 0); len(evs) != 1 {
		t.Fatal("the newest POST stream is gone")
	}
	if evs, _ := es.After(ctx, "s", "post0", 0); len(evs) != 0 {
		t.Fatal("the oldest POST stream is still there")
	}
	n, err := st.Client().Keys(ctx, st.Prefix()+"events:s:*").Result()
	must(t, err)
	if len(n) > 40 {
		t.Fatalf("%d event keys for one session", len(n))
	}
}

// Redis down: each call fails within a bound; restarted, the same store
// works again, deletions reach the watchers again.
func TestStores_failFastWhileRedisIsDownAndRecover(t *testing.T) {
	srv := redistest.Start(t)
	a, b := storeOn(t, srv, "a"), storeOn(t, srv, "b")
	ctx := context.Background()
	deleted := make(chan string, 8)
	stop, err := b.SessionStore().WatchDeleted(ctx, func(id string) { deleted <- id })
	must(t, err)
	defer stop()
	ss, es := a.SessionStore(), a.EventStore(0, 0)
	must(t, ss.Create(ctx, "s", nil, time.Minute))

	srv.Kill()
	calls := map[string]func() error{
		"Create":  func() error { return ss.Create(ctx, "t", nil, time.Minute) },
		"Touch":   func() error { return ss.Touch(ctx, "s", time.Minute) },
		"Load":    func() error { _, err := ss.Load(ctx, "s"); return err },
		"Delete":  func() error { return ss.Delete(ctx, "s") },
		"Append":  func() error { return es.Append(ctx, "s", "x", 1, []byte("a")) },
		"Publish": func() error { _, err := es.Publish(ctx, "s", "x", []byte("a"), ""); return err },
		"After":   func() error { _, err := es.After(ctx, "s", "x", 0); return err },
		"Watch": func() error {
			_, _, stop, err := es.Watch(ctx, "s", "y")
			if err == nil {
				stop()
			}
			return err
		},
		"Forget": func() error { return es.Forget(ctx, "s") },
	}
	for name, call := range calls {
		start := time.Now()
		err := call()
		if err == nil || errors.Is(err, streamable.ErrSessionNotFound) {
			t.Errorf("%s with Redis down: %v", name, err)
		}
		if d := time.Since(start); d > 3*time.Second {
			t.Errorf("%s with Redis down took %v", name, d)
		}
	}

	srv.Restart()
	// go-redis dials again in the background, once a second, after
	// failed dials: the store works again soon, with no new client.
	eventually(t, func() error { return ss.Create(ctx, "s2", []byte("x"), time.Minute) })
	if _, err := es.Publish(ctx, "s2", "x", []byte("a"), ""); err != nil {
		t.Fatal(err)
	}
	// b's subscription comes back by itself: a deletion reaches it.
	deadline := time.Now().Add(10 * time.Second)
	for {
		must(t, ss.Delete(ctx, "s2"))
		select {
		case id := <-deleted:
			if id != "s2" {
				t.Fatalf("deleted %q", id)
			}
			return
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatal("deletions do not reach the other instance after a restart")
		}
	}
}

// eventually retries f until it succeeds, failing the test past ten
// seconds.
func eventually(t *testing.T, f func() error) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := f()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("still failing after ten seconds: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
