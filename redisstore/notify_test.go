package redisstore_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/mcp"
)

// Updates and list changes produced on one instance reach the sessions of
// another that want them, once, and no other.
func TestBroadcast_reachesTheSessionsOfEveryInstanceThatWantIt(t *testing.T) {
	_, _, a, b := twoNodes(t)
	ctx := context.Background()
	onX, onY := connect(t, a), connect(t, a)
	noErr(t, onX.cs.Subscribe(ctx, uriX))
	noErr(t, onX.cs.Subscribe(ctx, uriY))
	noErr(t, onY.cs.Subscribe(ctx, uriY))

	b0 := b.trips.Load()
	noErr(t, b.srv.ResourceUpdated(ctx, uriX))
	if got := b.trips.Load() - b0; got != 1 {
		t.Errorf("%d round trips for ResourceUpdated, want 1", got)
	}
	noErr(t, b.srv.ResourceUpdated(ctx, uriY))
	if got := next(t, onY.updates, "update of y"); got != uriY { // x would have come first
		t.Fatalf("a session not subscribed to x got an update of %q", got)
	}
	// On the producing instance, a's own update is told once: its echo
	// from Redis is ignored (it would come before b's update of y).
	noErr(t, a.srv.ResourceUpdated(ctx, uriX))
	noErr(t, b.srv.ResourceUpdated(ctx, uriY))
	var got []string
	for range 4 {
		got = append(got, next(t, onX.updates, "update"))
	}
	if want := []string{uriX, uriY, uriX, uriY}; !slices.Equal(got, want) {
		t.Errorf("updates %q, want %q", got, want)
	}

	b0 = b.trips.Load()
	noErr(t, b.srv.AddTool(&mcp.Tool{Name: "new"},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		}))
	next(t, onX.tools, "tools/list_changed")
	next(t, onY.tools, "tools/list_changed")
	waitFor(t, "the list change published", func() bool { return b.trips.Load()-b0 == 1 })
}

// Redis down: the producing instance's sessions are told, within the
// store's timeout; after a restart the other instances' are again.
func TestBroadcast_survivesARedisOutage(t *testing.T) {
	rs, _, a, b := twoNodes(t)
	ctx := context.Background()
	onA, onB := connect(t, a), connect(t, b)
	noErr(t, onA.cs.Subscribe(ctx, uriX))
	noErr(t, onB.cs.Subscribe(ctx, uriX))

	rs.Kill()
	within(t, 3*time.Second, "ResourceUpdated with Redis down", func() { noErr(t, b.srv.ResourceUpdated(ctx, uriX)) })
	if got := next(t, onB.updates, "local update"); got != uriX {
		t.Fatalf("update of %q", got)
	}
	within(t, 3*time.Second, "AddTool with Redis down", func() {
		noErr(t, b.srv.AddTool(&mcp.Tool{Name: "new"},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{}, nil
			}))
	})
	next(t, onB.tools, "local tools/list_changed")

	rs.Restart()
	waitSubscribers(t, a.st, 2)
	noErr(t, b.srv.ResourceUpdated(ctx, uriX))
	if got := next(t, onA.updates, "update from b after the restart"); got != uriX {
		t.Fatalf("update of %q", got)
	}
	b.srv.RemoveTools("new")
	next(t, onA.tools, "tools/list_changed from b after the restart")
}

func noErr(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// An instance whose first session came while Redis was down subscribes
// once it is back, by itself.
func TestBroadcast_subscribesOnceRedisIsBack(t *testing.T) {
	rs, _, a, b := twoNodes(t)
	ctx := context.Background()
	rs.Kill()
	var onA *client
	within(t, 5*time.Second, "a session's start with Redis down", func() { onA = connect(t, a) })
	noErr(t, onA.cs.Subscribe(ctx, uriX))
	rs.Restart()
	waitSubscribers(t, a.st, 1)
	noErr(t, b.srv.ResourceUpdated(ctx, uriX))
	if got := next(t, onA.updates, "update from b"); got != uriX {
		t.Fatalf("update of %q", got)
	}
}

// A subscriptions/listen stream (2026-07-28, no session) on one instance
// gets the updates and list changes produced on another.
func TestBroadcast_reachesListenStreams(t *testing.T) {
	_, _, a, b := twoNodes(t)
	ctx := context.Background()
	c := connectVersion(t, a, mcp.Version20260728)
	noErr(t, c.cs.Subscribe(ctx, uriX))
	noErr(t, b.srv.ResourceUpdated(ctx, uriY))
	noErr(t, b.srv.ResourceUpdated(ctx, uriX))
	if got := next(t, c.updates, "update of x"); got != uriX { // y would have come first
		t.Fatalf("update of %q on a stream listening to x", got)
	}
	noErr(t, b.srv.AddTool(&mcp.Tool{Name: "new"},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		}))
	next(t, c.tools, "tools/list_changed")
}
