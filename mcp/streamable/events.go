package streamable

import (
	"context"
	"sync"
)

// EventStore keeps the events of a session's SSE streams, so that a
// client whose connection broke can resume a stream where it left off
// (GET with Last-Event-ID). Each stream of a session is identified by a
// string and numbers its events 1, 2, 3…; an event's data is one JSON-RPC
// message. What a store holds is bytes and strings only, so that it can
// live outside the process (Redis, say) and be shared by several
// instances of a server.
//
// Implementations must be safe for concurrent use. The Streamable HTTP
// handler appends a stream's events in order, one at a time.
type EventStore interface {
	// Append stores event seq of a session's stream. data is valid only
	// during the call: the store keeps a copy.
	Append(ctx context.Context, session, stream string, seq uint64, data []byte) error
	// After returns the events of the stream numbered above seq that the
	// store still holds, in order. A stream it knows nothing of has none.
	After(ctx context.Context, session, stream string, seq uint64) ([]StoredEvent, error)
	// Forget drops every event of a session that has ended.
	Forget(ctx context.Context, session string) error
}

// StoredEvent is one event of an EventStore: its number in its stream and
// its data.
type StoredEvent struct {
	Seq  uint64 // its number in its stream, from 1
	Data []byte // one JSON-RPC message
}

// Defaults of MemoryEventStore.
const (
	DefaultMaxSessionEvents      = 1024
	DefaultMaxSessionEventsBytes = 1 << 20
)

// MemoryEventStore is an EventStore in the process's memory, bounded per
// session: past maxEvents events or maxBytes bytes of data, a session's
// oldest events are dropped, though never its newest one (a client
// resuming from before them gets what is left). Its memory is thus at
// most the number of live sessions times maxBytes (plus one event each).
// It is the Streamable HTTP handler's default. Safe for concurrent use.
type MemoryEventStore struct {
	maxEvents, maxBytes int

	mu       sync.Mutex
	sessions map[string]*sessionEvents
}

// sessionEvents are the events of one session, oldest first, across its
// streams.
type sessionEvents struct {
	events []memEvent
	head   int // events[:head] are dropped
	bytes  int
}

type memEvent struct {
	stream string
	StoredEvent
}

// NewMemoryEventStore returns an empty store keeping up to maxEvents events
// and maxBytes bytes of data per session (0: DefaultMaxSessionEvents,
// DefaultMaxSessionEventsBytes).
func NewMemoryEventStore(maxEvents, maxBytes int) *MemoryEventStore {
	if maxEvents <= 0 {
		maxEvents = DefaultMaxSessionEvents
	}
	if maxBytes <= 0 {
		maxBytes = DefaultMaxSessionEventsBytes
	}
	return &MemoryEventStore{maxEvents: maxEvents, maxBytes: maxBytes, sessions: map[string]*sessionEvents{}}
}

// Append implements EventStore.
func (m *MemoryEventStore) Append(_ context.Context, session, stream string, seq uint64, data []byte) error {
	e := memEvent{stream, StoredEvent{seq, append([]byte(nil), data...)}}
	m.mu.Lock()
	defer m.mu.Unlock()
	se := m.sessions[session]
	if se == nil {
		se = &sessionEvents{}
		m.sessions[session] = se
	}
	se.events = append(se.events, e)
	se.bytes += len(data)
	for len(se.events)-se.head > m.maxEvents || (se.bytes > m.maxBytes && len(se.events)-se.head > 1) {
		se.bytes -= len(se.events[se.head].Data)
		se.events[se.head] = memEvent{}
		se.head++
	}
	if se.head > len(se.events)/2 { // compact: the dropped half goes
		n := copy(se.events, se.events[se.head:])
		clear(se.events[n:])
		se.events, se.head = se.events[:n], 0
	}
	return nil
}

// After implements EventStore. The events returned share their data with
// the store: callers must not modify it.
func (m *MemoryEventStore) After(_ context.Context, session, stream string, seq uint64) ([]StoredEvent, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	se := m.sessions[session]
	if se == nil {
		return nil, nil
	}
	var out []StoredEvent
	for _, e := range se.events[se.head:] {
		if e.stream == stream && e.Seq > seq {
			out = append(out, e.StoredEvent)
		}
	}
	return out, nil
}

// Forget implements EventStore.
func (m *MemoryEventStore) Forget(_ context.Context, session string) error {
	m.mu.Lock()
	delete(m.sessions, session)
	m.mu.Unlock()
	return nil
}
