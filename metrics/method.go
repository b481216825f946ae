package metrics

import (
	"maps"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/mcpwire/mcpwire/codec"
)

// The per-method children of the Collector's vectors. Resolving label
// values (WithLabelValues) hashes them and takes the vector's lock; so it
// is done once per method, and once per code of a method, and the children
// are kept in maps that are replaced on addition and never modified: a
// report by name reads them with one atomic load and one lookup, taking no
// lock. A session asks for a method's children once (Collector.Method, its
// conn.MethodResolver) and reports to them directly: no lookup at all for
// a result.
//
// A method first seen in a refusal has its codes only; the first request a
// handler answers (or the first -32000, or a session resolving the method)
// gives it its latency histogram, its code "0" and its rejection counter,
// from then on present at 0 when unused. So "(unknown)" and "(invalid)", which no handler answers, show
// no empty histogram. A methodStats is immutable once published: gaining
// those children replaces it in the map.

// maxCodes bounds the distinct codes counted apart for one method; later
// ones share the code label "other" (and take a lock: a slow path that a
// sane server never meets). Handlers choose their codes, and one that
// passes a peer's number through must not grow the metric without bound.
const maxCodes = 32

// otherCode is the code label past maxCodes.
const otherCode = "other"

// methodStats holds one method's children.
type methodStats struct {
	served   bool               // the three below are set
	result   prometheus.Counter // requests_total{code="0"}: the common case
	duration *latency
	rejected prometheus.Counter
	codes    *codeCounters // shared by every version of the method's stats
}

// codeCounters holds a method's requests_total children by code.
type codeCounters struct {
	vec  *prometheus.CounterVec
	name string // the method

	mu    sync.Mutex                                        // serialises additions
	m     atomic.Pointer[map[codec.Code]prometheus.Counter] // replaced, never modified
	other prometheus.Counter                                // code="other", once needed; under mu
}

// method returns the children of method, made bare on its first report.
func (c *Collector) method(method string) *methodStats {
	if m, ok := (*c.methods.Load())[method]; ok {
		return m
	}
	return c.grow(method, false)
}

// served returns the children of method with those of a method a handler
// answers.
func (c *Collector) served(method string) *methodStats {
	if m, ok := (*c.methods.Load())[method]; ok && m.served {
		return m
	}
	return c.grow(method, true)
}

// grow adds method's children, or the served ones, and returns them.
func (c *Collector) grow(method string, served bool) *methodStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	old := *c.methods.Load()
	m, ok := old[method]
	if ok && (m.served || !served) {
		return m
	}
	if !ok {
		codes := &codeCounters{vec: c.requests, name: method}
		codes.m.Store(&map[codec.Code]prometheus.Counter{})
		m = &methodStats{codes: codes}
	}
	if served {
		m = &methodStats{
			served:   true,
			result:   c.requests.WithLabelValues(method, "0"),
			duration: c.duration.child(method),
			rejected: c.rejected.WithLabelValues(method),
			codes:    m.codes,
		}
	}
	next := maps.Clone(old)
	next[method] = m
	c.methods.Store(&next)
	return m
}

// Answered counts a request of the method answered with code and
// observes its latency d (conn.MethodMetrics).
func (m *methodStats) Answered(code codec.Code, d time.Duration) {
	m.count(code)
	m.duration.observe(d)
}

// Refused counts a request of the method refused with code, and -32000 as
// a rejection too (conn.MethodMetrics). m is served.
func (m *methodStats) Refused(code codec.Code) {
	m.count(code)
	if code == codec.CodeOverloaded {
		m.rejected.Inc()
	}
}

// count adds one request answered with code.
func (m *methodStats) count(code codec.Code) {
	if code == 0 && m.served {
		m.result.Inc()
		return
	}
	if ctr, ok := (*m.codes.m.Load())[code]; ok {
		ctr.Inc()
		return
	}
	m.codes.add(code).Inc()
}

func (k *codeCounters) add(code codec.Code) prometheus.Counter {
	k.mu.Lock()
	defer k.mu.Unlock()
	old := *k.m.Load()
	if ctr, ok := old[code]; ok {
		return ctr
	}
	if len(old) >= maxCodes { // past the bound: the map stops growing
		if k.other == nil {
			k.other = k.vec.WithLabelValues(k.name, otherCode)
		}
		return k.other
	}
	ctr := k.vec.WithLabelValues(k.name, strconv.Itoa(int(code)))
	next := maps.Clone(old)
	next[code] = ctr
	k.m.Store(&next)
	return ctr
}
