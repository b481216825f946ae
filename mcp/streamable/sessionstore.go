package streamable

import (
	"context"
	"errors"
	"sync"
	"time"
)

// SessionStore records the Streamable HTTP sessions that exist: their ids
// and what re-creating one needs (the client's initialize request, as
// sent). A server process keeps its live sessions in memory; the store is
// the authority on which ids are valid, so that a session deleted or
// expired is refused everywhere, and so that another instance of the
// server sharing the store (behind a load balancer) can take a session
// over: it re-creates it from the stored initialize request. What a store
// holds is bytes and strings only.
//
// Implementations must be safe for concurrent use.
type SessionStore interface {
	// Create records a new session that stays valid for ttl unless
	// touched (ttl <= 0: until deleted).
	Create(ctx context.Context, id string, state []byte, ttl time.Duration) error
	// Touch extends a session's validity by ttl from now; it fails with
	// ErrSessionNotFound for a session that is unknown, expired or
	// deleted.
	Touch(ctx context.Context, id string, ttl time.Duration) error
	// Load returns a session's state, or ErrSessionNotFound.
	Load(ctx context.Context, id string) ([]byte, error)
	// Delete forgets a session; deleting an unknown one is not an error.
	Delete(ctx context.Context, id string) error
}

// ErrSessionNotFound is returned by a SessionStore for a session that is
// unknown, expired or deleted, and by a client whose server no longer
// knows its session (HTTP 404).
var ErrSessionNotFound = errors.New("mcp: session not found")

// MemorySessionStore is a SessionStore in the process's memory: the
// Streamable HTTP handler's default. Expired sessions are dropped as new
// ones are created. Safe for concurrent use; handlers of several servers
// in one process may share one.
type MemorySessionStore struct {
	mu       sync.Mutex
	sessions map[string]*memSession
	sweep    time.Time // when expired sessions were last dropped
	now      func() time.Time
}

type memSession struct {
	state   []byte
	expires time.Time // zero: never
}

// NewMemorySessionStore returns an empty store.
func NewMemorySessionStore() *MemorySessionStore {
	return &MemorySessionStore{sessions: map[string]*memSession{}, now: time.Now}
}

func expiry(now time.Time, ttl time.Duration) time.Time {
	if ttl <= 0 {
		return time.Time{}
	}
	return now.Add(ttl)
}

func (s *memSession) expired(now time.Time) bool {
	return !s.expires.IsZero() && !now.Before(s.expires)
}

// Create implements SessionStore.
func (m *MemorySessionStore) Create(_ context.Context, id string, state []byte, ttl time.Duration) error {
	now := m.now()
	m.mu.Lock()
	defer m.mu.Unlock()
	if now.Sub(m.sweep) > time.Minute {
		m.sweep = now
		for k, s := range m.sessions {
			if s.expired(now) {
				delete(m.sessions, k)
			}
		}
	}
	m.sessions[id] = &memSession{state: append([]byte(nil), state...), expires: expiry(now, ttl)}
	return nil
}

// Touch implements SessionStore.
func (m *MemorySessionStore) Touch(_ context.Context, id string, ttl time.Duration) error {
	now := m.now()
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.liveLocked(id, now)
	if s == nil {
		return ErrSessionNotFound
	}
	s.expires = expiry(now, ttl)
	return nil
}

// Load implements SessionStore. The state returned is shared: callers
// must not modify it.
func (m *MemorySessionStore) Load(_ context.Context, id string) ([]byte, error) {
	now := m.now()
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.liveLocked(id, now)
	if s == nil {
		return nil, ErrSessionNotFound
	}
	return s.state, nil
}

// liveLocked returns session id unless it is missing or expired at now
// (an expired one is removed). Under mu.
func (m *MemorySessionStore) liveLocked(id string, now time.Time) *memSession {
	s := m.sessions[id]
	if s == nil || s.expired(now) {
		delete(m.sessions, id)
		return nil
	}
	return s
}

// Delete implements SessionStore.
func (m *MemorySessionStore) Delete(_ context.Context, id string) error {
	m.mu.Lock()
	delete(m.sessions, id)
	m.mu.Unlock()
	return nil
}
