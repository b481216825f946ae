package metrics_test

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/metrics"
)

// latencies fall on, below and above the bounds of testBuckets.
var (
	testBuckets = []float64{0.001, 0.01, 1}
	latencies   = []time.Duration{0, time.Millisecond, time.Millisecond + 1, 10 * time.Millisecond, time.Second, 2 * time.Second, 3 * time.Microsecond}
)

// hist is what a scrape says of a histogram.
type hist struct {
	count   uint64
	sum     float64
	le      []float64 // the bounds, +Inf left out
	cum     []uint64  // cumulative counts by bound
	created bool      // it has a created timestamp
}

// histogramOf gathers the first histogram named name from reg.
func histogramOf(t *testing.T, reg prometheus.Gatherer, name string) hist {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		h := f.GetMetric()[0].GetHistogram()
		out := hist{count: h.GetSampleCount(), sum: h.GetSampleSum(), created: h.GetCreatedTimestamp() != nil}
		for _, b := range h.GetBucket() {
			out.le = append(out.le, b.GetUpperBound())
			out.cum = append(out.cum, b.GetCumulativeCount())
		}
		return out
	}
	t.Fatalf("no %s", name)
	return hist{}
}

// The latency histogram holds what client_golang's own histogram holds for
// the same observations: buckets, count and sum; reported one by one, or
// gathered by a tally and flushed.
func TestCollector_latencyIsClientGolangsHistogram(t *testing.T) {
	ref := prometheus.NewRegistry()
	h := prometheus.NewHistogram(prometheus.HistogramOpts{Name: "ref", Buckets: testBuckets})
	ref.MustRegister(h)
	for _, d := range latencies {
		h.Observe(d.Seconds())
	}
	want := histogramOf(t, ref, "ref")
	for _, mode := range []string{"by name", "method", "tally"} {
		t.Run(mode, func(t *testing.T) {
			reg := prometheus.NewRegistry()
			c, err := metrics.New(reg, &metrics.Options{Buckets: testBuckets})
			if err != nil {
				t.Fatal(err)
			}
			m := c.Method("m")
			tally := m.Tally()
			for _, d := range latencies {
				switch mode {
				case "by name":
					c.Answered("m", 0, d)
				case "method":
					m.Answered(0, d)
				default:
					tally.Answered(0, d)
				}
			}
			tally.Flush()
			tally.Flush() // nothing more
			got := histogramOf(t, reg, "mcpwire_request_duration_seconds")
			if got.count != want.count || math.Abs(got.sum-want.sum) > 1e-12 || !slices.Equal(got.le, want.le) || !slices.Equal(got.cum, want.cum) {
				t.Errorf("got %+v, want %+v", got, want)
			}
			if !got.created {
				t.Error("no created timestamp")
			}
		})
	}
}

// A tally counts results when flushed, and other codes at once; what it
// gathered is reported once.
func TestCollector_tallyCountsCodes(t *testing.T) {
	reg := prometheus.NewRegistry()
	c, err := metrics.New(reg, nil)
	if err != nil {
		t.Fatal(err)
	}
	tally := c.Method("m").Tally()
	tally.Answered(0, time.Millisecond)
	tally.Answered(0, time.Millisecond)
	tally.Answered(codec.CodeInvalidParams, time.Millisecond)
	if got := scrape(t, reg)[`mcpwire_requests_total{code="0",method="m"}`]; got != 0 {
		t.Errorf("results before Flush: %v, want 0", got)
	}
	tally.Flush()
	tally.Flush()
	got := scrape(t, reg)
	for series, want := range map[string]float64{
		`mcpwire_requests_total{code="0",method="m"}`:        2,
		`mcpwire_requests_total{code="-32602",method="m"}`:   1,
		`mcpwire_request_duration_seconds_count{method="m"}`: 3,
	} {
		if got[series] != want {
			t.Errorf("%s = %v, want %v", series, got[series], want)
		}
	}
}

// Buckets out of order, or NaN, are refused; a last +Inf is allowed (it
// is always there).
func TestNew_checksBuckets(t *testing.T) {
	for _, b := range [][]float64{{1, 0.5}, {0.1, 0.1}, {math.NaN()}, {0.1, math.NaN()}} {
		if _, err := metrics.New(prometheus.NewRegistry(), &metrics.Options{Buckets: b}); err == nil {
			t.Errorf("buckets %v accepted", b)
		}
	}
	reg := prometheus.NewRegistry()
	c, err := metrics.New(reg, &metrics.Options{Buckets: []float64{0.1, math.Inf(+1)}})
	if err != nil {
		t.Fatal(err)
	}
	c.Answered("m", 0, time.Second)
	if n := len(histogramOf(t, reg, "mcpwire_request_duration_seconds").le); n != 1 {
		t.Errorf("%d buckets, want 1 and +Inf", n)
	}
}
