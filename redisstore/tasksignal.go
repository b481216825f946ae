package redisstore

import "context"

// A task's signals (mcp.TaskSignals) go over one channel of the store,
// "tasks", whatever the task: its payload is the task's scope as in its
// keys (scopeID) followed by its id, and each instance hands it to its
// own watchers of that task. So an instance subscribes once, on its first
// Watch, and a Watch costs no round trip after that.

// taskSignal is the payload of task id of scope's signals.
func taskSignal(scope, id string) string { return scopeID(scope) + id }

// Signal implements mcp.TaskSignals: one PUBLISH.
func (t *taskStore) Signal(ctx context.Context, scope, id string) error {
	return t.s.publish(ctx, t.s.channel("tasks"), taskSignal(scope, id))
}

// Watch implements mcp.TaskSignals. The first Watch of the store
// subscribes to its channel (a round trip; an error when Redis does not
// answer, and the next Watch tries again); the subscription lasts until
// the Store is closed, and go-redis renews it after Redis comes back.
func (t *taskStore) Watch(ctx context.Context, scope, id string, f func()) (stop func(), err error) {
	if err := t.subscribe(ctx); err != nil {
		return nil, err
	}
	w, sig := &taskWatcher{f: f}, taskSignal(scope, id)
	t.mu.Lock()
	ws := t.watchers[sig]
	if ws == nil {
		ws = map[*taskWatcher]struct{}{}
		t.watchers[sig] = ws
	}
	ws[w] = struct{}{}
	t.mu.Unlock()
	return func() {
		t.mu.Lock()
		delete(ws, w)
		if len(t.watchers[sig]) == 0 {
			delete(t.watchers, sig)
		}
		t.mu.Unlock()
	}, nil
}

// subscribe subscribes the store to the channel of task signals, once.
func (t *taskStore) subscribe(ctx context.Context) error {
	t.subMu.Lock()
	defer t.subMu.Unlock()
	if t.subscribed {
		return nil
	}
	if _, err := t.s.subscribe(ctx, t.s.channel("tasks"), t.deliver); err != nil {
		return err
	}
	t.subscribed = true
	return nil
}

// deliver hands a signal to the watchers of its task, on the bus's
// goroutine.
func (t *taskStore) deliver(payload string) {
	t.mu.Lock()
	fs := make([]func(), 0, len(t.watchers[payload]))
	for w := range t.watchers[payload] {
		fs = append(fs, w.f)
	}
	t.mu.Unlock()
	for _, f := range fs {
		f()
	}
}
