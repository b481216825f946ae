package metrics

import (
	"errors"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/conn"
)

// DefaultBuckets are the latency histogram's upper bounds, in seconds: from
// 100µs (an inline handler or a cache hit) to 10s.
var DefaultBuckets = []float64{
	.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10,
}

// Options configure a Collector. A nil *Options gives the defaults; New
// copies them, so later changes have no effect.
type Options struct {
	// Buckets are the upper bounds of mcpwire_request_duration_seconds, in
	// seconds, increasing (nil: DefaultBuckets); New refuses them
	// otherwise. A last +Inf may be given or not: it is always there.
	Buckets []float64
	// ConstLabels are added to every metric of the Collector and of what it
	// watches: a server's name, say, when several share a registry.
	ConstLabels prometheus.Labels
}

// Collector is the Prometheus implementation of conn.Metrics: give it to
// conn.Options.Metrics (one Collector may serve every session of a
// server). It also reads, when scraped, the pools, limiters and caches it
// is told to watch. It is safe for concurrent use.
//
// Metrics (labels in braces):
//
//   - mcpwire_requests_total{method,code}: requests answered, by the
//     registered method name ("(unknown)" for every unregistered one,
//     "(invalid)" for messages that are no valid request) and the answer's
//     JSON-RPC code as a decimal ("0" for a result). It counts refusals
//     too.
//   - mcpwire_request_duration_seconds{method}: latency of the requests a
//     handler or an interceptor answered (see conn.Metrics.Answered).
//   - mcpwire_rejected_total{method}: requests refused -32000 before their
//     handler ran (overloaded, or shutting down: a retry is safe).
//   - mcpwire_in_flight: handlers handed off and not yet returned.
//   - mcpwire_jsonrpc1_requests_total{method}: JSON-RPC 1.0 requests and
//     notifications received (conn.Options.JSONRPC1), by method as above;
//     the answers to them are in mcpwire_requests_total with the others.
//   - what the Watch methods add: mcpwire_queue_depth,
//     mcpwire_workers_busy, mcpwire_workers, mcpwire_concurrency_limit,
//     mcpwire_concurrency_in_use, mcpwire_cache_hits_total,
//     mcpwire_cache_misses_total, mcpwire_cache_evictions_total,
//     mcpwire_cache_bytes, mcpwire_cache_entries.
//
// A request costs no allocation and a few atomic additions: its code's
// counter, its latency's bucket and the latency sum. A session resolves
// its methods' metrics once (Method), and the requests its reader answers
// itself, one after another, it gathers in a tally with plain additions
// and adds when it sends their answers: a few atomic additions per batch
// of answers, not per request.
type Collector struct {
	reg         prometheus.Registerer
	constLabels prometheus.Labels

	requests *prometheus.CounterVec
	duration *latencyFamily
	rejected *prometheus.CounterVec
	jsonrpc1 *prometheus.CounterVec
	inFlight atomic.Int64

	mu      sync.Mutex                              // serialises additions to methods
	methods atomic.Pointer[map[string]*methodStats] // replaced, never modified
}

var (
	_ conn.Metrics         = (*Collector)(nil)
	_ conn.MethodResolver  = (*Collector)(nil)
	_ conn.JSONRPC1Metrics = (*Collector)(nil)
)

// New makes a Collector and registers its metrics with reg; it fails if reg
// refuses one (a Collector already registered there, say), registering
// none then. Use prometheus.DefaultRegisterer for the process's default
// registry, or a prometheus.NewRegistry of your own.
func New(reg prometheus.Registerer, opts *Options) (*Collector, error) {
	if reg == nil {
		return nil, errors.New("metrics: New needs a prometheus.Registerer")
	}
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Buckets == nil {
		o.Buckets = DefaultBuckets
	}
	o.Buckets, o.ConstLabels = slices.Clone(o.Buckets), maps.Clone(o.ConstLabels)
	c := &Collector{reg: reg, constLabels: o.ConstLabels}
	c.requests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name:        "mcpwire_requests_total",
		Help:        "JSON-RPC requests answered, by method and code (0: a result).",
		ConstLabels: o.ConstLabels,
	}, []string{"method", "code"})
	var err error
	c.duration, err = newLatencyFamily("mcpwire_request_duration_seconds",
		"Latency of requests answered by a handler or an interceptor, from hand-off to answer.",
		o.Buckets, o.ConstLabels)
	if err != nil {
		return nil, err
	}
	c.rejected = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name:        "mcpwire_rejected_total",
		Help:        "Requests refused with -32000 (overloaded or shutting down) before their handler ran.",
		ConstLabels: o.ConstLabels,
	}, []string{"method"})
	c.jsonrpc1 = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name:        "mcpwire_jsonrpc1_requests_total",
		Help:        "JSON-RPC 1.0 requests and notifications received, by method; their answers count in mcpwire_requests_total too.",
		ConstLabels: o.ConstLabels,
	}, []string{"method"})
	inFlight := c.gauge("mcpwire_in_flight", "Handlers handed off and not yet returned (queued or running).",
		func() int { return int(c.inFlight.Load()) })
	if err := register(reg, c.requests, c.duration, c.rejected, c.jsonrpc1, inFlight); err != nil {
		return nil, err
	}
	c.methods.Store(&map[string]*methodStats{})
	return c, nil
}

// Answered counts a request answered after its handler or an interceptor
// ran, and observes its latency (conn.Metrics).
func (c *Collector) Answered(method string, code codec.Code, d time.Duration) {
	c.served(method).Answered(code, d)
}

// Refused counts a request answered before any handler ran; -32000 counts
// as a rejection too (conn.Metrics).
func (c *Collector) Refused(method string, code codec.Code) {
	if code != codec.CodeOverloaded {
		c.method(method).count(code)
		return
	}
	c.served(method).Refused(code) // a registered method: it will be served too
}

// Method returns the instruments of method, a registered method's name,
// for a session to report that method's requests to without naming it
// each time (conn.MethodResolver). The method's latency histogram, its
// code "0" and its rejection counter are present from then on.
func (c *Collector) Method(method string) conn.MethodMetrics { return c.served(method) }

// JSONRPC1 counts a JSON-RPC 1.0 request or notification of method in
// mcpwire_jsonrpc1_requests_total (conn.JSONRPC1Metrics): the version's
// label, apart from mcpwire_requests_total so that its label set stays as
// it is.
func (c *Collector) JSONRPC1(method string) { c.jsonrpc1.WithLabelValues(method).Inc() }

// InFlight adds delta to mcpwire_in_flight (conn.Metrics).
func (c *Collector) InFlight(delta int) { c.inFlight.Add(int64(delta)) }

// register registers every collector of cs with reg, or none.
func register(reg prometheus.Registerer, cs ...prometheus.Collector) error {
	for i, col := range cs {
		if err := reg.Register(col); err != nil {
			for _, done := range cs[:i] {
				reg.Unregister(done)
			}
			return err
		}
	}
	return nil
}
