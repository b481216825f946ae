package client

import "sync/atomic"

// Stats counts what a Client has done and what it dropped, since it was
// made. Every response counted as dropped reached no caller.
type Stats struct {
	// Open is how many sessions are open now.
	Open int
	// Dials counts the sessions opened; DialErrors the dials that failed.
	Dials, DialErrors uint64
	// Retries counts the attempts made after a call's first.
	Retries uint64
	// CacheHits counts the calls answered from the cache; CacheMisses
	// those of a cached method that went to a server.
	CacheHits, CacheMisses uint64

	// UnknownID counts responses whose id the client never sent (null
	// among them: the server's answer to a request or a batch it could
	// not read or refused whole).
	UnknownID uint64
	// Duplicate counts responses to a call already answered.
	Duplicate uint64
	// Late counts responses that came after their caller gave up (its
	// context ended).
	Late uint64
	// Invalid counts the server's messages that were no JSON-RPC message
	// at all: not JSON, no valid envelope, or over the frame limit.
	Invalid uint64
	// Oversized counts, among Invalid, the frames over the session's
	// Limits.MaxFrameBytes.
	Oversized uint64
}

// counters are the atomics behind Stats.
type counters struct {
	dials, dialErrors, retries, cacheHits, cacheMisses atomic.Uint64
	unknownID, duplicate, late, invalid, oversized     atomic.Uint64
}

// Stats returns the client's counts so far. It is safe to call at any
// time, from any goroutine.
func (c *Client) Stats() Stats {
	st := &c.st
	s := Stats{
		Dials: st.dials.Load(), DialErrors: st.dialErrors.Load(), Retries: st.retries.Load(),
		CacheHits: st.cacheHits.Load(), CacheMisses: st.cacheMisses.Load(),
		UnknownID: st.unknownID.Load(), Duplicate: st.duplicate.Load(), Late: st.late.Load(),
		Invalid: st.invalid.Load(), Oversized: st.oversized.Load(),
	}
	for _, sl := range c.slots {
		if ss := sl.cur.Load(); ss != nil && ss.alive() {
			s.Open++
		}
	}
	return s
}
