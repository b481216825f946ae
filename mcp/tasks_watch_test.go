package mcp_test

import (
	"context"
	"sync"
	"testing"

	"github.com/mcpwire/mcpwire/mcp"
)

// watchingStore is the memory task store with TaskSignals that only
// record which tasks are watched, as a shared store's would be.
type watchingStore struct {
	mcp.TaskStore
	mu      sync.Mutex
	watched map[string]bool
}

func (w *watchingStore) Signal(context.Context, string, string) error { return nil }

func (w *watchingStore) Watch(_ context.Context, _, id string, _ func()) (func(), error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.watched[id] = true
	return func() {}, nil
}

// TestTasks_watchedBeforeAnnounced: with a store that carries signals, a
// task is watched before its id reaches the client. A tasks/cancel the
// client sends to another instance right away signals a watcher that is
// there; a watch begun later, on the task's own goroutine, could miss it
// and the run would go on until its next poll.
func TestTasks_watchedBeforeAnnounced(t *testing.T) {
	store := &watchingStore{TaskStore: mcp.NewMemoryTaskStore(), watched: map[string]bool{}}
	srv, _ := extServer(t, &mcp.TaskOptions{Store: store})
	p := newStatelessPeer(t, srv, "inprocess")
	for range 20 {
		id := startExt(t, p, "hold")
		store.mu.Lock()
		watched := store.watched[id]
		store.mu.Unlock()
		if !watched {
			t.Fatalf("task %s was announced before it was watched", id)
		}
		p.call("tasks/cancel", idParams(id, extMeta))
	}
}
