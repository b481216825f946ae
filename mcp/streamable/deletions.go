package streamable

import (
	"context"
	"sync"
	"sync/atomic"
)

// deletionWatch is a handler's subscription to the deletions of a
// SharedSessionStore, made with the first session it holds (and tried
// again with the next while the store cannot be reached).
type deletionWatch struct {
	on     atomic.Bool // subscribed: the fast path
	mu     sync.Mutex
	stop   func()
	closed bool
}

// watchDeletions subscribes h to its store's deletions, if the store
// shares them and h is not subscribed yet: a copy of a session that
// another instance deletes then ends here at once (endGone).
func (h *Handler) watchDeletions(ctx context.Context) {
	d := &h.deletions
	if h.sharedSessions == nil || d.on.Load() {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.stop != nil || d.closed {
		return
	}
	stop, err := h.sharedSessions.WatchDeleted(ctx, h.deletedElsewhere)
	if err != nil {
		h.log.Warn("mcp: session store: cannot watch deletions; will retry with the next session", "err", err)
		return
	}
	d.stop = stop
	d.on.Store(true)
}

// deletedElsewhere ends the local copy of a session deleted through the
// store, without deleting it again. It runs on the store's goroutine, so
// the closing is handed off.
func (h *Handler) deletedElsewhere(id string) {
	if s, ok := h.sessions.Get(id); ok {
		go s.close(endGone)
	}
}

// close ends the subscription, for good.
func (d *deletionWatch) close() {
	d.mu.Lock()
	stop := d.stop
	d.stop, d.closed = nil, true
	d.mu.Unlock()
	if stop != nil {
		stop()
	}
}
