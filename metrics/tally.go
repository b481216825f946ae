package metrics

import (
	"time"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/conn"
)

// tally gathers one method's answers on one goroutine, a session's reader,
// and adds them to the method's metrics when flushed (conn.MethodTally):
// plain additions per request, atomic ones per flush. A code other than 0
// is counted at once (rare, and its counter may be new).
type tally struct {
	m       *methodStats
	results uint64        // answers with code 0 since the last flush
	counts  []uint64      // latencies by bucket, as m.duration's
	sum     time.Duration // their sum
	n       int           // answers since the last flush
}

// Tally returns a new tally of the method's answers (conn.MethodMetrics).
func (m *methodStats) Tally() conn.MethodTally {
	return &tally{m: m, counts: make([]uint64, len(m.duration.buckets))}
}

// Answered gathers an answer with code after d (conn.MethodTally).
func (t *tally) Answered(code codec.Code, d time.Duration) {
	if code == 0 {
		t.results++
	} else {
		t.m.count(code)
	}
	t.counts[t.m.duration.bucket(d)]++
	t.sum += d
	t.n++
}

// Flush adds what was gathered to the method's metrics (conn.MethodTally).
func (t *tally) Flush() {
	if t.n == 0 {
		return
	}
	if t.results != 0 {
		t.m.result.Add(float64(t.results))
	}
	t.m.duration.add(t.counts, t.sum.Seconds())
	t.results, t.sum, t.n = 0, 0, 0
}
