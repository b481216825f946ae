package session

import (
	"strconv"
	"sync"
	"sync/atomic"
)

// Quota counts sessions, in all and by group, for limits to be checked
// against: the counts of one Registry, or of several registries sharing
// it (Registry.Quota). Its zero value is ready. Safe for concurrent use.
type Quota struct {
	mu    sync.Mutex
	total int
	by    map[any]int // by group; a group at 0 is deleted
}

// Slot is one session's place in a Quota, from Acquire to Release.
type Slot struct {
	q     *Quota
	group any
	gone  atomic.Bool
}

// LimitError is the error of a session refused by a limit.
type LimitError struct {
	// PerGroup is false for the limit on all sessions (Max), true for the
	// limit on the sessions of one group (MaxPerGroup).
	PerGroup bool
	// Max is the value of the limit reached.
	Max int
}

// Error implements error.
func (e *LimitError) Error() string {
	if e.PerGroup {
		return "session: too many sessions of one group (limit " + strconv.Itoa(e.Max) + ")"
	}
	return "session: too many sessions (limit " + strconv.Itoa(e.Max) + ")"
}

// Acquire counts a new session of group unless that would pass maxTotal
// sessions in all or maxPerGroup sessions of group (<= 0: no bound); it
// then returns a *LimitError, the limit on all sessions checked first.
// group must be comparable (a map key).
func (q *Quota) Acquire(group any, maxTotal, maxPerGroup int) (*Slot, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	switch {
	case maxTotal > 0 && q.total >= maxTotal:
		return nil, &LimitError{Max: maxTotal}
	case maxPerGroup > 0 && q.by[group] >= maxPerGroup:
		return nil, &LimitError{PerGroup: true, Max: maxPerGroup}
	}
	if q.by == nil {
		q.by = map[any]int{}
	}
	q.total++
	q.by[group]++
	return &Slot{q: q, group: group}, nil
}

// Len returns the sessions counted, and those of group.
func (q *Quota) Len(group any) (total, inGroup int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.total, q.by[group]
}

// Release gives the slot back; calls after the first, and on a nil slot,
// do nothing.
func (s *Slot) Release() {
	if s == nil || s.gone.Swap(true) {
		return
	}
	q := s.q
	q.mu.Lock()
	q.total--
	if q.by[s.group]--; q.by[s.group] <= 0 {
		delete(q.by, s.group)
	}
	q.mu.Unlock()
}
