package metrics_test

import (
	"maps"
	"math"
	"sync/atomic"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/mcpwire/mcpwire/metrics"
	"github.com/mcpwire/mcpwire/pool"
)

// fakeCache is a metrics.Cache whose readings the test sets.
type fakeCache struct {
	hits, misses, evictions atomic.Uint64
	bytes                   atomic.Int64
	entries                 atomic.Int64
}

func (c *fakeCache) Hits() uint64      { return c.hits.Load() }
func (c *fakeCache) Misses() uint64    { return c.misses.Load() }
func (c *fakeCache) Evictions() uint64 { return c.evictions.Load() }
func (c *fakeCache) Bytes() int64      { return c.bytes.Load() }
func (c *fakeCache) Len() int          { return int(c.entries.Load()) }

// fakePool is a metrics.Queue and a metrics.Workers.
type fakePool struct{ queued, running, cap atomic.Int64 }

func (p *fakePool) QueueLen() int { return int(p.queued.Load()) }
func (p *fakePool) Busy() int     { return int(p.running.Load()) }
func (p *fakePool) Cap() int      { return int(p.cap.Load()) }

// The watched parts are read when scraped, each scrape anew.
func TestCollector_watchesReadTheirSourcesWhenScraped(t *testing.T) {
	reg := prometheus.NewRegistry()
	col, err := metrics.New(reg, nil)
	if err != nil {
		t.Fatal(err)
	}
	var k fakeCache
	var p fakePool
	var limit, inUse atomic.Int64
	for _, err := range []error{
		col.WatchCache(&k),
		col.WatchQueue(&p),
		col.WatchWorkers(&p),
		col.WatchLimit(func() int { return int(limit.Load()) }, func() int { return int(inUse.Load()) }),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	set := func(n int64) {
		k.hits.Store(uint64(7 * n))
		k.misses.Store(uint64(3 * n))
		k.evictions.Store(uint64(2 * n))
		k.bytes.Store(4096 * n)
		k.entries.Store(5 * n)
		p.queued.Store(4 * n)
		p.running.Store(2 * n)
		p.cap.Store(8 * n)
		limit.Store(10 * n)
		inUse.Store(6 * n)
	}
	want := func(n float64) map[string]float64 {
		return map[string]float64{
			"mcpwire_cache_hits_total":      7 * n,
			"mcpwire_cache_misses_total":    3 * n,
			"mcpwire_cache_evictions_total": 2 * n,
			"mcpwire_cache_bytes":           4096 * n,
			"mcpwire_cache_entries":         5 * n,
			"mcpwire_queue_depth":           4 * n,
			"mcpwire_workers_busy":          2 * n,
			"mcpwire_workers":               8 * n,
			"mcpwire_concurrency_limit":     10 * n,
			"mcpwire_concurrency_in_use":    6 * n,
			"mcpwire_in_flight":             0,
		}
	}
	for _, n := range []int64{1, 3} {
		set(n)
		got := scrape(t, reg) // the Collector has made no per-method series yet
		if !maps.Equal(got, want(float64(n))) {
			t.Errorf("scrape %d:\n got %v\nwant %v", n, got, want(float64(n)))
		}
	}

	// One source of each kind per Collector.
	if err := col.WatchCache(&k); err == nil {
		t.Error("a second cache was registered under the same names")
	}
	if err := col.WatchQueue(&p); err == nil {
		t.Error("a second queue was registered under the same names")
	}
}

// The project's own types fit: a fixed *pool.Limiter through its Cap and
// InUse, a *pool.Pool as Workers.
func TestCollector_watchesThePoolPackage(t *testing.T) {
	reg := prometheus.NewRegistry()
	col, err := metrics.New(reg, nil)
	if err != nil {
		t.Fatal(err)
	}
	lim := pool.NewLimiter(3)
	if !lim.TryAcquire() {
		t.Fatal("TryAcquire")
	}
	defer lim.Release(0)
	p, err := pool.New(&pool.Options{Workers: 5})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(t.Context())
	if err := col.WatchLimit(lim.Cap, lim.InUse); err != nil {
		t.Fatal(err)
	}
	if err := col.WatchWorkers(p); err != nil {
		t.Fatal(err)
	}
	got := scrape(t, reg)
	for name, v := range map[string]float64{
		"mcpwire_concurrency_limit": 3, "mcpwire_concurrency_in_use": 1,
		"mcpwire_workers": 5, "mcpwire_workers_busy": 0,
	} {
		if got[name] != v {
			t.Errorf("%s = %v, want %v", name, got[name], v)
		}
	}
}

// A pool without a bound on workers has Cap -1; its gauge says +Inf, not
// a negative number of workers.
func TestCollector_unboundedPoolHasNoWorkerBound(t *testing.T) {
	reg := prometheus.NewRegistry()
	col, err := metrics.New(reg, nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := pool.New(&pool.Options{Workers: pool.Unbounded})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(t.Context())
	if err := col.WatchWorkers(p); err != nil {
		t.Fatal(err)
	}
	if got := scrape(t, reg)["mcpwire_workers"]; !math.IsInf(got, 1) {
		t.Errorf("mcpwire_workers = %v for an unbounded pool, want +Inf", got)
	}
}
