package mcp

import (
	"context"
	"errors"
	"maps"
	"slices"
	"sort"
	"sync"
	"time"
)

// Errors of a TaskStore.
var (
	// ErrTaskNotFound is returned for a task the store does not hold (never
	// made, deleted or expired).
	ErrTaskNotFound = errors.New("mcp: task not found")
	// ErrTaskLimit is returned by Create when the session holds as many
	// live tasks as it may.
	ErrTaskLimit = errors.New("mcp: too many tasks")
)

// TaskStore keeps the tasks of sessions, as bytes under string keys: a
// session's key and a task's id. A task is gone once its expiry has
// passed. Implementations must be safe for concurrent use.
type TaskStore interface {
	// Create stores a new task that expires at expires, unless the session
	// holds max live tasks already (ErrTaskLimit).
	Create(ctx context.Context, session, id string, data []byte, expires time.Time, max int) error
	// Get returns a task's data, or ErrTaskNotFound.
	Get(ctx context.Context, session, id string) ([]byte, error)
	// Update replaces a task's data with what f makes of it, atomically;
	// an error of f leaves the task as it was and is returned.
	// ErrTaskNotFound when there is no such task.
	Update(ctx context.Context, session, id string, f func(old []byte) ([]byte, error)) error
	// List returns up to n of the session's live tasks whose ids sort
	// after after ("": from the first), in id order, and whether more
	// follow.
	List(ctx context.Context, session, after string, n int) (ids []string, data [][]byte, more bool, err error)
	// DeleteSession forgets all the tasks of a session.
	DeleteSession(ctx context.Context, session string) error
}

// NewMemoryTaskStore returns a TaskStore that keeps tasks in memory, for
// one process. Expired tasks are dropped as the store is used.
func NewMemoryTaskStore() TaskStore {
	return &memoryTaskStore{sessions: map[string]map[string]*memoryTask{}}
}

type memoryTask struct {
	data    []byte
	expires time.Time
}

type memoryTaskStore struct {
	mu       sync.Mutex
	sessions map[string]map[string]*memoryTask
}

// live returns the session's tasks with the expired ones dropped (nil:
// none).
func (m *memoryTaskStore) live(session string, now time.Time) map[string]*memoryTask {
	ts := m.sessions[session]
	for id, t := range ts {
		if !now.Before(t.expires) {
			delete(ts, id)
		}
	}
	if ts != nil && len(ts) == 0 {
		delete(m.sessions, session)
		return nil
	}
	return ts
}

func (m *memoryTaskStore) Create(_ context.Context, session, id string, data []byte, expires time.Time, max int) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	ts := m.live(session, time.Now())
	if max > 0 && len(ts) >= max {
		return ErrTaskLimit
	}
	if ts == nil {
		ts = map[string]*memoryTask{}
		m.sessions[session] = ts
	}
	ts[id] = &memoryTask{data: slices.Clone(data), expires: expires}
	return nil
}

// get returns a live task; under mu.
func (m *memoryTaskStore) get(session, id string) *memoryTask {
	t := m.sessions[session][id]
	if t == nil {
		return nil
	}
	if !time.Now().Before(t.expires) {
		delete(m.sessions[session], id)
		return nil
	}
	return t
}

func (m *memoryTaskStore) Get(_ context.Context, session, id string) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t := m.get(session, id)
	if t == nil {
		return nil, ErrTaskNotFound
	}
	return slices.Clone(t.data), nil
}

func (m *memoryTaskStore) Update(_ context.Context, session, id string, f func([]byte) ([]byte, error)) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	t := m.get(session, id)
	if t == nil {
		return ErrTaskNotFound
	}
	b, err := f(slices.Clone(t.data))
	if err != nil {
		return err
	}
	t.data = slices.Clone(b)
	return nil
}

func (m *memoryTaskStore) List(_ context.Context, session, after string, n int) ([]string, [][]byte, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	ts := m.live(session, time.Now())
	keys := slices.Sorted(maps.Keys(ts))
	start := sort.SearchStrings(keys, after)
	if start < len(keys) && keys[start] == after {
		start++
	}
	end := min(start+n, len(keys))
	ids := keys[start:end]
	data := make([][]byte, len(ids))
	for i, id := range ids {
		data[i] = slices.Clone(ts[id].data)
	}
	return ids, data, end < len(keys), nil
}

func (m *memoryTaskStore) DeleteSession(_ context.Context, session string) error {
	m.mu.Lock()
	delete(m.sessions, session)
	m.mu.Unlock()
	return nil
}
