package mcp

import (
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpwire/mcpwire/codec"
)

// SessionRetryAfter is the retry hint of a session refused by
// AcquireSession (data.retryAfterMs of its error): sessions end at the
// clients' pace or their idle timeout's, not a queue's.
const SessionRetryAfter = time.Second

// Names of the limits, in a refusal's data.limit.
const (
	limitMaxSessions             = "maxSessions"
	limitMaxSessionsPerPrincipal = "maxSessionsPerPrincipal"
)

// AcquireSession counts one more session of owner (a comparable key: the
// principal, or the peer's address) for a transport that bounds its
// sessions, unless that would pass maxTotal sessions in all or maxPer of
// that owner (a negative bound is none). The count is the server's, shared
// by every transport that calls it (the Streamable HTTP and HTTP+SSE
// handlers serving one Server). When refused, release is nil and refused
// is the error to answer: -32000 (codec.CodeOverloaded) whose data names
// the limit, its value and the retry hint, e.g.
//
//	{"limit":"maxSessions","max":10000,"retryAfterMs":1000}
//	{"limit":"maxSessionsPerPrincipal","max":1000,"retryAfterMs":1000}
//
// Otherwise release gives the place back when the session ends; calls
// after the first do nothing. Safe for concurrent use.
func (s *Server) AcquireSession(owner any, maxTotal, maxPer int) (release func(), refused *codec.Error) {
	slot, refused := s.bounded.acquire(owner, maxTotal, maxPer)
	if refused != nil {
		return nil, refused
	}
	return slot.release, nil
}

// sessionCount counts the bounded sessions of a Server, in all and by
// owner. Its zero value is ready. Safe for concurrent use.
type sessionCount struct {
	mu    sync.Mutex
	total int
	by    map[any]int // by owner; an owner at 0 is deleted
}

// sessionSlot is one session's place in a sessionCount.
type sessionSlot struct {
	n    *sessionCount
	key  any
	gone atomic.Bool
}

// acquire counts a new session of the owner key unless that would pass
// maxTotal or maxPer (negative: no bound), which it reports as the error
// to answer.
func (n *sessionCount) acquire(key any, maxTotal, maxPer int) (*sessionSlot, *codec.Error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	switch {
	case maxTotal >= 0 && n.total >= maxTotal:
		return nil, tooManySessions(limitMaxSessions, maxTotal,
			"Too many sessions: the server holds its limit of "+strconv.Itoa(maxTotal)+" ("+limitMaxSessions+"); retry later")
	case maxPer >= 0 && n.by[key] >= maxPer:
		return nil, tooManySessions(limitMaxSessionsPerPrincipal, maxPer,
			"Too many sessions: this client holds its limit of "+strconv.Itoa(maxPer)+" ("+limitMaxSessionsPerPrincipal+"); end one or retry later")
	}
	if n.by == nil {
		n.by = map[any]int{}
	}
	n.total++
	n.by[key]++
	return &sessionSlot{n: n, key: key}, nil
}

// release gives the slot back, once.
func (s *sessionSlot) release() {
	if s.gone.Swap(true) {
		return
	}
	n := s.n
	n.mu.Lock()
	n.total--
	if n.by[s.key]--; n.by[s.key] <= 0 {
		delete(n.by, s.key)
	}
	n.mu.Unlock()
}

// tooManySessions is the -32000 refusing a session past a limit.
func tooManySessions(limit string, maxN int, msg string) *codec.Error {
	data := fmt.Appendf(nil, `{"limit":%q,"max":%d,"retryAfterMs":%d}`, limit, maxN, SessionRetryAfter.Milliseconds())
	return codec.NewError(codec.CodeOverloaded, msg).WithData(codec.Raw(data))
}
