package metrics

import (
	"maps"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/mcpwire/mcpwire/codec"
)

// The per-method children of the Collector's vectors. Resolving label
// values (WithLabelValues) hashes them and takes the vector's lock; so it
// is done once per method, and once per code of a method, and the children
// are kept in maps that are replaced on addition and never modified: a
// request reads them with one atomic load and one lookup, taking no lock.

// maxCodes bounds the distinct codes counted apart for one method; later
// ones share the code label "other" (and take a lock: a slow path that a
// sane server never meets). Handlers choose their codes, and one that
// passes a peer's number through must not grow the metric without bound.
const maxCodes = 32

// otherCode is the code label past maxCodes.
const otherCode = "other"

// methodStats holds one method's children.
type methodStats struct {
	result   prometheus.Counter // requests_total{code="0"}: the common case
	duration prometheus.Observer
	rejected prometheus.Counter
	vec      *prometheus.CounterVec // requests_total, for further codes
	name     string

	mu    sync.Mutex                                        // serialises additions to codes
	codes atomic.Pointer[map[codec.Code]prometheus.Counter] // replaced, never modified
	other prometheus.Counter                                // code="other", once needed; under mu
}

// method returns the children of method, made on its first request.
func (c *Collector) method(method string) *methodStats {
	if m, ok := (*c.methods.Load())[method]; ok {
		return m
	}
	return c.addMethod(method)
}

func (c *Collector) addMethod(method string) *methodStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	old := *c.methods.Load()
	if m, ok := old[method]; ok {
		return m
	}
	m := &methodStats{
		result:   c.requests.WithLabelValues(method, "0"),
		duration: c.duration.WithLabelValues(method),
		rejected: c.rejected.WithLabelValues(method),
		vec:      c.requests,
		name:     method,
	}
	m.codes.Store(&map[codec.Code]prometheus.Counter{})
	next := maps.Clone(old)
	next[method] = m
	c.methods.Store(&next)
	return m
}

// count adds one request answered with code.
func (m *methodStats) count(code codec.Code) {
	if code == 0 {
		m.result.Inc()
		return
	}
	if ctr, ok := (*m.codes.Load())[code]; ok {
		ctr.Inc()
		return
	}
	m.addCode(code).Inc()
}

func (m *methodStats) addCode(code codec.Code) prometheus.Counter {
	m.mu.Lock()
	defer m.mu.Unlock()
	old := *m.codes.Load()
	if ctr, ok := old[code]; ok {
		return ctr
	}
	if len(old) >= maxCodes { // past the bound: the map stops growing
		if m.other == nil {
			m.other = m.vec.WithLabelValues(m.name, otherCode)
		}
		return m.other
	}
	ctr := m.vec.WithLabelValues(m.name, strconv.Itoa(int(code)))
	next := maps.Clone(old)
	next[code] = ctr
	m.codes.Store(&next)
	return ctr
}
