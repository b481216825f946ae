package redisstore_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/redisstore"
)

// A session opened on instance a, its requests then served by b: what b's
// copy is asked (subscribe, unsubscribe, setLevel) holds on a's copy,
// which alone has the client's GET stream, and a copy made later on c
// starts with it.
func TestSessionState_aChangeOnOneCopyHoldsOnTheOthers(t *testing.T) {
	rs, sessions, a, b := twoNodes(t)
	ctx := context.Background()
	c := connect(t, a)
	onA := a.session(t)
	c.steer.post.Store(b)

	a0, b0 := a.trips.Load(), b.trips.Load()
	if err := c.cs.Subscribe(ctx, uriX); err != nil {
		t.Fatal(err)
	}
	// b revived the session (loading its state: one round trip) and
	// saved the subscription (one); a loads the state again (one).
	waitFor(t, "a's copy subscribed to x", func() bool { return onA.Subscribed(uriX) })
	if got := b.trips.Load() - b0; got != 2 {
		t.Errorf("b: %d round trips for a revival and a subscribe, want 2", got)
	}
	if got := a.trips.Load() - a0; got != 1 {
		t.Errorf("a: %d round trips to learn of a subscribe, want 1", got)
	}

	// An update produced on b reaches the client through a's copy (b's
	// copy has no stream to the client).
	b0 = b.trips.Load()
	if err := b.srv.ResourceUpdated(ctx, uriX); err != nil {
		t.Fatal(err)
	}
	if got := next(t, c.updates, "update of x"); got != uriX {
		t.Fatalf("update of %q", got)
	}
	if got := b.trips.Load() - b0; got != 1 {
		t.Errorf("b: %d round trips for ResourceUpdated, want 1", got)
	}

	// Unsubscribed through b: a's copy no longer sends updates of x.
	if err := c.cs.Unsubscribe(ctx, uriX); err != nil {
		t.Fatal(err)
	}
	if err := c.cs.Subscribe(ctx, uriY); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "a's copy subscribed to y only", func() bool { return !onA.Subscribed(uriX) && onA.Subscribed(uriY) })
	for _, u := range []string{uriX, uriY} {
		if err := b.srv.ResourceUpdated(ctx, u); err != nil {
			t.Fatal(err)
		}
	}
	if got := next(t, c.updates, "update of y"); got != uriY { // x would have come first
		t.Fatalf("update of %q after unsubscribing from x", got)
	}

	// The level set through b holds on a's copy.
	b0 = b.trips.Load()
	if err := c.cs.SetLoggingLevel(ctx, mcp.LevelError); err != nil {
		t.Fatal(err)
	}
	if got := b.trips.Load() - b0; got != 1 {
		t.Errorf("b: %d round trips for setLevel, want 1", got)
	}
	waitFor(t, "a's copy at level error", func() bool { return onA.LogLevel() == mcp.LevelError })
	for _, l := range []mcp.LoggingLevel{mcp.LevelWarning, mcp.LevelError} {
		if err := onA.Log(ctx, &mcp.LoggingMessageParams{Level: l, Data: []byte(`"m"`)}); err != nil {
			t.Fatal(err)
		}
	}
	if got := next(t, c.logs, "log message"); got != mcp.LevelError {
		t.Fatalf("a log message of level %q got through a session at level error", got)
	}

	// Ordinary calls cost no round trip.
	a0, b0 = a.trips.Load(), b.trips.Load()
	for range 5 {
		if err := c.cs.Ping(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := c.cs.ListTools(ctx, nil); err != nil {
			t.Fatal(err)
		}
	}
	if a.trips.Load() != a0 || b.trips.Load() != b0 {
		t.Errorf("ordinary calls cost %d (a) and %d (b) round trips, want 0", a.trips.Load()-a0, b.trips.Load()-b0)
	}

	// A copy made later, on c, starts with the state.
	cc := newNode(t, rs, "c", sessions)
	c.steer.post.Store(cc)
	if err := c.cs.Ping(ctx); err != nil {
		t.Fatal(err)
	}
	onC := cc.session(t)
	if onC.Subscribed(uriX) || !onC.Subscribed(uriY) || onC.LogLevel() != mcp.LevelError {
		t.Errorf("c's copy: x %v, y %v, level %q; want false, true, error", onC.Subscribed(uriX), onC.Subscribed(uriY), onC.LogLevel())
	}
}

// Redis down: changes hold on the copy that made them, calls answer
// within the store's timeout; after a restart the copies share again,
// with neither the servers nor the stores re-created.
func TestSessionState_survivesARedisOutage(t *testing.T) {
	rs, _, a, b := twoNodes(t)
	ctx := context.Background()
	c := connect(t, a) // every request to a
	onA := a.session(t)

	rs.Kill()
	within(t, 3*time.Second, "subscribe with Redis down", func() {
		if err := c.cs.Subscribe(ctx, uriX); err != nil {
			t.Fatal(err)
		}
	})
	if !onA.Subscribed(uriX) {
		t.Fatal("with Redis down, the copy lost the subscription")
	}
	within(t, 3*time.Second, "setLevel with Redis down", func() {
		if err := c.cs.SetLoggingLevel(ctx, mcp.LevelWarning); err != nil {
			t.Fatal(err)
		}
	})
	within(t, 3*time.Second, "ResourceUpdated with Redis down", func() {
		if err := a.srv.ResourceUpdated(ctx, uriX); err != nil {
			t.Fatal(err)
		}
	})
	if got := next(t, c.updates, "local update"); got != uriX {
		t.Fatalf("update of %q", got)
	}

	rs.Restart()
	waitSubscribers(t, a.st, 1) // b subscribes with its first session
	// The restarted Redis knows nothing: a change through b is the state.
	c.steer.post.Store(b)
	if err := c.cs.Subscribe(ctx, uriY); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "a's copy holding b's state", func() bool {
		return onA.Subscribed(uriY) && !onA.Subscribed(uriX) && onA.LogLevel() == mcp.LevelInfo
	})
	if err := b.srv.ResourceUpdated(ctx, uriY); err != nil {
		t.Fatal(err)
	}
	if got := next(t, c.updates, "update of y after the restart"); got != uriY {
		t.Fatalf("update of %q", got)
	}
}

// waitSubscribers waits until the session state and notice channels have
// n subscribers each: the instances' pub/sub connections are back.
func waitSubscribers(t *testing.T, st *redisstore.Store, n int64) {
	t.Helper()
	chans := []string{st.Prefix() + "ch:state", st.Prefix() + "ch:notice"}
	waitFor(t, "every instance subscribed again", func() bool {
		m, err := st.Client().PubSubNumSub(context.Background(), chans...).Result()
		if err != nil {
			return false
		}
		for _, c := range chans {
			if m[c] < n {
				return false
			}
		}
		return true
	})
}

func TestSessionState_keysArePrefixedAndExpire(t *testing.T) {
	st, _ := newStore(t, "a")
	ctx := context.Background()
	for _, ch := range []*mcp.SessionStateChange{
		{Session: "s1", Origin: "o", URI: "test://x", Subscribed: true},
		{Session: "s1", Origin: "o", URI: "test://y", Subscribed: true},
		{Session: "s1", Origin: "o", URI: "test://x"},
		{Session: "s1", Origin: "o", Level: mcp.LevelDebug},
	} {
		if err := st.SaveSessionState(ctx, ch); err != nil {
			t.Fatal(err)
		}
	}
	got, err := st.LoadSessionState(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	if got.Level != mcp.LevelDebug || len(got.Subscriptions) != 1 || got.Subscriptions[0] != "test://y" {
		t.Errorf("loaded %+v", got)
	}
	if none, err := st.LoadSessionState(ctx, "s2"); err != nil || none.Level != "" || none.Subscriptions != nil {
		t.Errorf("an unknown session: %+v, %v", none, err)
	}
	keys, err := st.Client().Keys(ctx, "*").Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		if !strings.HasPrefix(k, st.Prefix()) {
			t.Errorf("key %q lacks the prefix %q", k, st.Prefix())
		}
		if ttl := st.Client().PTTL(ctx, k).Val(); ttl <= 0 {
			t.Errorf("key %q has no time to live (%v)", k, ttl)
		}
	}
	if len(keys) != 1 {
		t.Errorf("keys %q, want one", keys)
	}
}
