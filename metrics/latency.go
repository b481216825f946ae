package metrics

import (
	"errors"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// mcpwire_request_duration_seconds, kept here rather than in a
// prometheus.HistogramVec so that many observations can be added at once:
// a session's reader gathers the latencies of the requests it answers
// itself (tally.go) and adds them with one atomic addition per bucket
// used, not four per request. The exposition is a histogram's, the same
// as client_golang's: cumulative buckets, +Inf, _sum and _count.
//
// Consistency: an observation adds to its bucket before the sum, and a
// scrape reads the sum before the buckets, so a scrape's _count includes
// every observation its _sum does (and perhaps one or two more, which the
// next scrape's sum has).

// latencyFamily is the histogram family, by method; a prometheus.Collector.
type latencyFamily struct {
	desc   *prometheus.Desc
	bounds []float64       // upper bounds, increasing, without +Inf
	limits []time.Duration // bounds[i] as a duration: see limit

	mu       sync.Mutex // serialises additions to children
	children atomic.Pointer[[]*latency]
}

// latency is one method's histogram. Safe for concurrent use.
type latency struct {
	method  string
	limits  []time.Duration // the family's
	buckets []atomic.Uint64 // by bucket, not cumulative; the last: above every bound
	sum     atomic.Uint64   // math.Float64bits of the sum, in seconds
	created time.Time
}

// errBuckets refuses Options.Buckets out of order, or NaN.
var errBuckets = errors.New("metrics: Options.Buckets must be increasing numbers")

func newLatencyFamily(name, help string, bounds []float64, constLabels prometheus.Labels) (*latencyFamily, error) {
	if n := len(bounds); n > 0 && math.IsInf(bounds[n-1], +1) {
		bounds = bounds[:n-1] // +Inf is always there
	}
	for i, b := range bounds {
		if math.IsNaN(b) || i > 0 && !(bounds[i-1] < b) {
			return nil, errBuckets
		}
	}
	f := &latencyFamily{desc: prometheus.NewDesc(name, help, []string{"method"}, constLabels), bounds: bounds, limits: make([]time.Duration, len(bounds))}
	for i, b := range bounds {
		f.limits[i] = limit(b)
	}
	f.children.Store(&[]*latency{})
	return f, nil
}

// child makes method's histogram. The Collector calls it once per method.
func (f *latencyFamily) child(method string) *latency {
	l := &latency{method: method, limits: f.limits, buckets: make([]atomic.Uint64, len(f.bounds)+1), created: time.Now()}
	f.mu.Lock()
	defer f.mu.Unlock()
	old := *f.children.Load()
	next := append(old[:len(old):len(old)], l)
	f.children.Store(&next)
	return l
}

// Describe implements prometheus.Collector.
func (f *latencyFamily) Describe(ch chan<- *prometheus.Desc) { ch <- f.desc }

// Collect implements prometheus.Collector.
func (f *latencyFamily) Collect(ch chan<- prometheus.Metric) {
	for _, l := range *f.children.Load() {
		sum := math.Float64frombits(l.sum.Load()) // before the buckets: see above
		cum := make(map[float64]uint64, len(f.bounds))
		var n uint64
		for i := range l.buckets {
			n += l.buckets[i].Load()
			if i < len(f.bounds) {
				cum[f.bounds[i]] = n
			}
		}
		ch <- prometheus.MustNewConstHistogramWithCreatedTimestamp(f.desc, n, sum, cum, l.created, l.method)
	}
}

// bucket returns the index of the bucket of an observation of d: the first
// bound at or above d.Seconds(), as client_golang chooses, found without
// converting d (limit).
func (l *latency) bucket(d time.Duration) int {
	for i, b := range l.limits {
		if d <= b {
			return i
		}
	}
	return len(l.limits)
}

// limit returns the longest duration whose Seconds() is at most the bound
// b: as Seconds never decreases with the duration, d <= limit(b) exactly
// when d.Seconds() <= b (for a b below every duration, the shortest one,
// which no latency is).
func limit(b float64) time.Duration {
	switch {
	case b >= float64(math.MaxInt64)/1e9:
		return math.MaxInt64
	case b < float64(math.MinInt64)/1e9:
		return math.MinInt64
	}
	d := time.Duration(b * 1e9)
	for d > math.MinInt64 && d.Seconds() > b {
		d--
	}
	for d < math.MaxInt64 && (d+1).Seconds() <= b {
		d++
	}
	return d
}

// observe adds one observation of d.
func (l *latency) observe(d time.Duration) {
	l.buckets[l.bucket(d)].Add(1)
	addFloat(&l.sum, d.Seconds())
}

// add adds the observations counted by bucket in counts, whose sum is sum,
// and zeroes counts.
func (l *latency) add(counts []uint64, sum float64) {
	for i, n := range counts {
		if n != 0 {
			l.buckets[i].Add(n)
			counts[i] = 0
		}
	}
	addFloat(&l.sum, sum)
}

// addFloat adds v to the float64 whose bits *bits holds.
func addFloat(bits *atomic.Uint64, v float64) {
	for {
		old := bits.Load()
		if bits.CompareAndSwap(old, math.Float64bits(math.Float64frombits(old)+v)) {
			return
		}
	}
}
