package metrics

import (
	"math"

	"github.com/prometheus/client_golang/prometheus"
)

// What a Collector reads from other parts of a server when it is scraped:
// gauges and counters computed from a snapshot by a function, so that the
// parts watched carry no hook on their hot path. The interfaces are the
// few methods read; the project's types have them (noted on each).

// Queue is a worker pool's queue of tasks waiting for a worker (*pool.Pool
// has QueueLen once it queues). QueueLen must be safe for concurrent use.
type Queue interface {
	QueueLen() int
}

// Workers is a worker pool's goroutines (*pool.Pool has both methods).
// They must be safe for concurrent use.
type Workers interface {
	Busy() int // workers running tasks
	Cap() int  // the most that may run at once; negative: no bound
}

// Cache is a response cache's running totals and present size (package
// cache's Cache has these methods). They must be safe for concurrent use.
type Cache interface {
	Hits() uint64      // lookups answered from the cache
	Misses() uint64    // lookups that were not
	Evictions() uint64 // entries evicted
	Bytes() int64      // bytes held
	Len() int          // entries held
}

// WatchQueue adds mcpwire_queue_depth, read from q on each scrape. It fails
// if the registry refuses it (one queue per Collector).
func (c *Collector) WatchQueue(q Queue) error {
	return register(c.reg, c.gauge("mcpwire_queue_depth", "Tasks waiting for a worker of the pool.", q.QueueLen))
}

// WatchWorkers adds mcpwire_workers_busy and mcpwire_workers, read from w
// on each scrape; mcpwire_workers is +Inf for a pool without a bound
// (pool.Unbounded, whose Cap is negative). It fails if the registry
// refuses them (one pool per Collector).
func (c *Collector) WatchWorkers(w Workers) error {
	return register(c.reg,
		c.gauge("mcpwire_workers_busy", "Workers of the pool running tasks.", w.Busy),
		c.gaugeFloat("mcpwire_workers", "Workers the pool may run at once (+Inf: no bound).", func() float64 {
			if n := w.Cap(); n >= 0 {
				return float64(n)
			}
			return math.Inf(1)
		}))
}

// WatchLimit adds mcpwire_concurrency_limit and mcpwire_concurrency_in_use,
// read on each scrape from limit and inUse, which must be safe for
// concurrent use. Taking functions, it accepts every shape of limiter:
// WatchLimit(l.Cap, l.InUse) for a fixed *pool.Limiter,
// WatchLimit(a.Limit, a.InUse) for an adaptive one whose limit moves. It
// fails if the registry refuses them (one limiter per Collector).
func (c *Collector) WatchLimit(limit, inUse func() int) error {
	return register(c.reg,
		c.gauge("mcpwire_concurrency_limit", "Current concurrency limit of the admission control.", limit),
		c.gauge("mcpwire_concurrency_in_use", "Slots of the admission control in use.", inUse))
}

// WatchCache adds mcpwire_cache_hits_total, mcpwire_cache_misses_total,
// mcpwire_cache_evictions_total, mcpwire_cache_bytes and
// mcpwire_cache_entries, read from k on each scrape. It fails if the
// registry refuses them (one cache per Collector).
func (c *Collector) WatchCache(k Cache) error {
	return register(c.reg,
		c.counter("mcpwire_cache_hits_total", "Cache lookups answered from the cache.", k.Hits),
		c.counter("mcpwire_cache_misses_total", "Cache lookups not answered from the cache.", k.Misses),
		c.counter("mcpwire_cache_evictions_total", "Cache entries evicted.", k.Evictions),
		c.gaugeFloat("mcpwire_cache_bytes", "Bytes held by the cache.", func() float64 { return float64(k.Bytes()) }),
		c.gauge("mcpwire_cache_entries", "Entries held by the cache.", k.Len))
}

// gauge is a gauge read from fn when scraped.
func (c *Collector) gauge(name, help string, fn func() int) prometheus.GaugeFunc {
	return c.gaugeFloat(name, help, func() float64 { return float64(fn()) })
}

func (c *Collector) gaugeFloat(name, help string, fn func() float64) prometheus.GaugeFunc {
	return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help, ConstLabels: c.constLabels}, fn)
}

// counter is a counter read from fn when scraped.
func (c *Collector) counter(name, help string, fn func() uint64) prometheus.CounterFunc {
	return prometheus.NewCounterFunc(prometheus.CounterOpts{Name: name, Help: help, ConstLabels: c.constLabels},
		func() float64 { return float64(fn()) })
}
