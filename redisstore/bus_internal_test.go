package redisstore

import (
	"context"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/internal/redistest"
)

func TestBus_deliversToEverySubscriberOfEveryInstance(t *testing.T) {
	srv := redistest.Start(t)
	var stores []*Store
	for _, name := range []string{"a", "b"} {
		rdb, err := Dial(srv.URL())
		if err != nil {
			t.Fatal(err)
		}
		st := New(rdb, &Options{Instance: name})
		t.Cleanup(func() { st.Close(); rdb.Close() })
		stores = append(stores, st)
	}
	ctx := context.Background()
	got := make(chan string, 4)
	ch := stores[0].channel("test")
	for _, st := range stores {
		unsub, err := st.subscribe(ctx, ch, func(p string) { got <- st.instance + "=" + p })
		if err != nil {
			t.Fatal(err)
		}
		defer unsub()
	}
	if err := stores[1].publish(ctx, ch, "hello"); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for len(seen) < 2 {
		select {
		case m := <-got:
			seen[m] = true
		case <-time.After(5 * time.Second):
			t.Fatalf("after 5s only %v", seen)
		}
	}
	if !seen["a=hello"] || !seen["b=hello"] {
		t.Errorf("got %v", seen)
	}
}

// A subscription made while Redis answers goes on after Redis is killed
// and restarted: go-redis subscribes again on its new connection.
func TestBus_aSubscriptionOutlivesARedisRestart(t *testing.T) {
	srv := redistest.Start(t)
	rdb, err := Dial(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	st := New(rdb, &Options{Instance: "a"})
	t.Cleanup(func() { st.Close(); rdb.Close() })
	got := make(chan string, 16)
	ctx := context.Background()
	unsub, err := st.subscribe(ctx, st.channel("r"), func(p string) { got <- p })
	if err != nil {
		t.Fatal(err)
	}
	defer unsub()
	srv.Kill()
	srv.Restart()
	start := time.Now()
	deadline := start.Add(15 * time.Second)
	for {
		_ = st.publish(ctx, st.channel("r"), "hello")
		select {
		case <-got:
			return
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatal("nothing delivered 15 s after Redis came back")
		}
	}
}
