package streamable_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/mcp/streamable"
)

// countingEvents is the default event store, counting what is appended.
type countingEvents struct {
	*streamable.MemoryEventStore
	n atomic.Int64
}

func (c *countingEvents) Append(ctx context.Context, session, stream string, seq uint64, data []byte) error {
	c.n.Add(1)
	return c.MemoryEventStore.Append(ctx, session, stream, seq, data)
}

// heapInUse returns the bytes of live heap objects after a full collection.
func heapInUse() uint64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestHTTP_sessionMemory measures what a Streamable HTTP session holds
// (the figures the package's Design section cites): idle, and subscribed
// with its standalone stream's events at the default retention. Bodies go
// straight to the handler (no sockets, whose buffers are the HTTP
// server's, not the session's).
func TestHTTP_sessionMemory(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("memory figures without the race detector, and not in -short")
	}
	srv := echoServer(t)
	events := &countingEvents{MemoryEventStore: streamable.NewMemoryEventStore(0, 0)}
	h := streamable.NewHandler(srv, &streamable.Options{EventStore: events, MaxSessionsPerPrincipal: -1})
	defer h.Close()
	send := func(session, body string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json")
		if session != "" {
			r.Header.Set("Mcp-Session-Id", session)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != http.StatusOK && w.Code != http.StatusAccepted {
			t.Fatalf("%s: %d %s", body, w.Code, w.Body)
		}
		return w
	}
	open := func(n int) []string {
		ids := make([]string, n)
		for i := range ids {
			ids[i] = send("", initializeBody).Header().Get("Mcp-Session-Id")
			send(ids[i], `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		}
		return ids
	}
	open(20) // warm the pools up

	const idleN, subN, updates = 500, 20, streamable.DefaultMaxSessionEvents + 100
	before := heapInUse()
	idle := open(idleN)
	perIdle := float64(heapInUse()-before) / idleN

	subs := open(subN)
	for _, id := range subs {
		send(id, `{"jsonrpc":"2.0","id":1,"method":"resources/subscribe","params":{"uri":"test://watched"}}`)
	}
	before = heapInUse()
	for range updates {
		if err := srv.ResourceUpdated(context.Background(), "test://watched"); err != nil {
			t.Fatal(err)
		}
	}
	for deadline := time.Now().Add(30 * time.Second); events.n.Load() < subN*updates; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d events stored of %d", events.n.Load(), subN*updates)
		}
	}
	perSub := perIdle + float64(heapInUse()-before)/subN
	runtime.KeepAlive(idle)
	t.Logf("per idle session %.1f KiB; per subscribed session with %d events kept %.1f KiB",
		perIdle/1024, streamable.DefaultMaxSessionEvents, perSub/1024)
	if perIdle > 16<<10 || perSub > 1<<20 {
		t.Fatalf("a session holds more than budgeted (16 KiB idle, 1 MiB subscribed): %.0f, %.0f bytes", perIdle, perSub)
	}
}
