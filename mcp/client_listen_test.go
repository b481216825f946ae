package mcp_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/mcp"
)

// countingWire counts the subscriptions/listen requests and the
// notifications/cancelled a client writes.
func countingWire() (*wire, *atomic.Int32, *atomic.Int32) {
	var listens, cancels atomic.Int32
	w := &wire{}
	w.seen = func(msg []byte) {
		switch {
		case strings.Contains(string(msg), `"method":"subscriptions/listen"`):
			listens.Add(1)
		case strings.Contains(string(msg), `"method":"notifications/cancelled"`):
			cancels.Add(1)
		}
	}
	return w, &listens, &cancels
}

// A 2026-07-28 session whose client wants list changes keeps a
// subscriptions/listen stream open: the server's changes reach its
// handlers. Subscribe replaces the stream with one naming the resource
// too (the old one cancelled), whose updates then reach
// ResourceUpdatedHandler; Unsubscribe drops it again.
func TestClient_statelessListensForWhatItsHandlersWant(t *testing.T) {
	srv := twoQuestions(t, nil)
	must(t, srv.AddResource(&mcp.Resource{URI: "file:///a", Name: "a"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{Text: "A"}}}, nil
	}))
	changed := make(chan string, 8)
	c := mcp.NewClient(&mcp.Implementation{Name: "cli", Version: "1"}, &mcp.ClientOptions{ProtocolVersion: mcp.Version20260728,
		ToolListChangedHandler: func(context.Context, *mcp.ClientSession) { changed <- "tools" },
		ResourceUpdatedHandler: func(_ context.Context, _ *mcp.ClientSession, p *mcp.ResourceUpdatedParams) { changed <- p.URI },
	})
	w, listens, cancels := countingWire()
	cs := connectWire(t, srv, c, w)
	next := func() string {
		t.Helper()
		select {
		case s := <-changed:
			return s
		case <-time.After(10 * time.Second):
			t.Fatal("nothing came")
			return ""
		}
	}
	addTool := func(name string) {
		must(t, srv.AddTool(&mcp.Tool{Name: name}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return textResult(name), nil
		}))
	}
	// The stream is open once the server has acknowledged it; a change
	// made before may be missed, so add tools until one is announced.
	deadline := time.Now().Add(10 * time.Second)
	for i := 0; ; i++ {
		addTool("t" + string(rune('a'+i%26)) + string(rune('a'+i/26)))
		select {
		case s := <-changed:
			if s != "tools" {
				t.Fatalf("got %s", s)
			}
		case <-time.After(20 * time.Millisecond):
			if time.Now().After(deadline) {
				t.Fatal("no list change came")
			}
			continue
		}
		break
	}
	must(t, cs.Subscribe(ctx10(t), "file:///a"))
	// Updates go to the new stream once the server has it: retry until
	// one comes, then the stream is settled.
	for {
		must(t, srv.ResourceUpdated(context.Background(), "file:///a"))
		select {
		case s := <-changed:
			if s != "file:///a" {
				t.Fatalf("got %s", s)
			}
		case <-time.After(20 * time.Millisecond):
			if time.Now().After(deadline) {
				t.Fatal("no update came")
			}
			continue
		}
		break
	}
	if n, m := listens.Load(), cancels.Load(); n != 2 || m != 1 {
		t.Fatalf("%d listen requests and %d cancellations, want 2 and 1", n, m)
	}
	addTool("after")
	for s := next(); s != "tools"; s = next() { // a late update of the retries above
		if s != "file:///a" {
			t.Fatalf("got %s", s)
		}
	}
	must(t, cs.Unsubscribe(ctx10(t), "file:///a"))
	for listens.Load() != 3 {
		if time.Now().After(deadline) {
			t.Fatalf("%d listen requests, want 3", listens.Load())
		}
		time.Sleep(time.Millisecond)
	}
	if m := cancels.Load(); m != 2 {
		t.Fatalf("%d cancellations, want 2", m)
	}
}

// A client that wants no list change and subscribes to nothing opens no
// stream; one asking to Subscribe to a server that does not declare
// resources.subscribe is refused.
func TestClient_statelessListensOnlyWhenAsked(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "srv", Version: "1"}, &mcp.ServerOptions{
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolsCapability{ListChanged: true}}})
	c := mcp.NewClient(nil, &mcp.ClientOptions{ProtocolVersion: mcp.Version20260728})
	w, listens, _ := countingWire()
	cs := connectWire(t, srv, c, w)
	if _, err := cs.ListTools(ctx10(t), nil); err != nil {
		t.Fatal(err)
	}
	if n := listens.Load(); n != 0 {
		t.Fatalf("%d listen requests", n)
	}
	if err := cs.Subscribe(ctx10(t), "file:///a"); err == nil {
		t.Fatal("Subscribe to a server without resources.subscribe succeeded")
	}
}
