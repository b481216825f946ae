package main

import (
	"runtime"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Latencies are recorded in nanoseconds, told apart to 3 significant
// digits, from 100 ns to an hour (a longer one counts as an hour).
const (
	histLowest  = 100
	histHighest = int64(time.Hour)
	histDigits  = 3
)

func newHist() *hdrhistogram.Histogram {
	return hdrhistogram.New(histLowest, histHighest, histDigits)
}

// shard is a part of the run's answers: connections share a few shards
// (a histogram is ~200 KiB; one per connection would not scale to
// thousands), each behind its own lock, held for the span of one record.
type shard struct {
	mu    sync.Mutex
	total *hdrhistogram.Histogram
	cur   *hdrhistogram.Histogram // this interval's
	tally tally                   // this interval's
	sum   tally                   // the intervals' before it
}

// tally counts answers and what was wrong with them.
type tally struct {
	responses, ok, errors int64 // errors: error answers and transport errors
	transport             int64
	mismatches            int64
	duplicates, unknown   int64
	bytesIn               int64
	codes                 map[int64]int64
	samples               map[int64]string // the first error object of each code
}

func (t *tally) add(o *tally) {
	t.responses += o.responses
	t.ok += o.ok
	t.errors += o.errors
	t.transport += o.transport
	t.mismatches += o.mismatches
	t.duplicates += o.duplicates
	t.unknown += o.unknown
	t.bytesIn += o.bytesIn
	for c, n := range o.codes {
		if t.codes == nil {
			t.codes = make(map[int64]int64)
		}
		t.codes[c] += n
	}
	for c, e := range o.samples {
		if _, ok := t.samples[c]; !ok {
			if t.samples == nil {
				t.samples = make(map[int64]string)
			}
			t.samples[c] = e
		}
	}
}

// stats gathers the run's measures. Safe for concurrent use.
type stats struct {
	shards []shard
	// targets are the run's targets' parts: target k's connections record
	// in targets[k].shards, a part of shards no other target's share.
	targets []targetStats

	start    time.Time
	mu       sync.Mutex // the collector's
	timeline []Interval
	last     time.Duration // end of the last interval
	// The last interval's: its answers' latencies, counts and start, to
	// fold a short one after it into it.
	prev      *hdrhistogram.Histogram
	prevTally tally
	prevFrom  time.Duration
}

// targetStats is what one target's connections sent, and where they
// record what came back.
type targetStats struct {
	shards []shard // its part of stats.shards
	// Sending side, counted by the writers.
	requests, notifications, bytesOut, lost atomic.Int64
}

// newStats makes the stats of a run of n targets (at least 1); set start
// when it begins. Each target has its own shards, about 2×GOMAXPROCS in
// all, so that its answers can be summed apart at the end: no per-call
// cost beyond the shard a connection records in anyway.
func newStats(n int) *stats {
	per := max(1, (2*runtime.GOMAXPROCS(0)+n-1)/n)
	s := &stats{shards: make([]shard, n*per), targets: make([]targetStats, n)}
	for i := range s.shards {
		s.shards[i].total = newHist()
		s.shards[i].cur = newHist()
	}
	for k := range s.targets {
		s.targets[k].shards = s.shards[k*per : (k+1)*per]
	}
	return s
}

// place returns the target and the shard of connection i: target i mod
// n, as the run dials it.
func (s *stats) place(i int) (*targetStats, *shard) {
	tg := &s.targets[i%len(s.targets)]
	return tg, &tg.shards[(i/len(s.targets))%len(tg.shards)]
}

// answered records an answer's latency and what it was.
// errorAnswer counts an error answer of code; the first of each code
// is kept as a sample.
func (t *tally) errorAnswer(code int64, errObj []byte) {
	t.errors++
	if t.codes == nil {
		t.codes = make(map[int64]int64)
	}
	t.codes[code]++
	if _, seen := t.samples[code]; !seen {
		if t.samples == nil {
			t.samples = make(map[int64]string)
		}
		t.samples[code] = string(errObj[:min(len(errObj), 500)])
	}
}

// add records answers' latencies (in nanoseconds) and what a tally
// counted.
func (sh *shard) add(lats []int64, t *tally) {
	sh.mu.Lock()
	for _, v := range lats {
		v = min(max(v, histLowest), histHighest)
		sh.total.RecordValue(v)
		sh.cur.RecordValue(v)
	}
	sh.tally.add(t)
	sh.mu.Unlock()
}

// tick closes the interval that ends now and returns it.
func (s *stats) tick(now time.Time) Interval { return s.close(now, false) }

// close ends the interval at now. With fold (the run's end), an interval
// shorter than half a second is folded into the one before: a sliver of
// a few milliseconds would chart as a spike of nothing.
func (s *stats) close(now time.Time, fold bool) Interval {
	h := newHist()
	var t tally
	for i := range s.shards {
		sh := &s.shards[i]
		sh.mu.Lock()
		h.Merge(sh.cur)
		sh.cur.Reset()
		t.add(&sh.tally)
		sh.sum.add(&sh.tally)
		sh.tally = tally{}
		sh.mu.Unlock()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	end := now.Sub(s.start)
	from := s.last
	if n := len(s.timeline); fold && n > 0 && end-s.last < 500*time.Millisecond {
		s.timeline = s.timeline[:n-1]
		h.Merge(s.prev)
		t.responses += s.prevTally.responses
		t.errors += s.prevTally.errors
		from = s.prevFrom
	}
	s.prev, s.prevTally, s.prevFrom, s.last = h, t, from, end
	iv := Interval{TS: end.Seconds(), Responses: t.responses, Errors: t.errors}
	if span := (end - from).Seconds(); span > 0 {
		iv.RPS = float64(t.responses) / span
	}
	l := latency(h)
	iv.P50US, iv.P99US, iv.MaxUS = l.P50, l.P99, l.Max
	s.timeline = append(s.timeline, iv)
	return iv
}

func us(ns int64) float64 { return float64(ns) / 1e3 }

// latency sums up the latencies h holds (zero when it holds none).
func latency(h *hdrhistogram.Histogram) Latency {
	if h.TotalCount() == 0 {
		return Latency{}
	}
	return Latency{
		Min: us(h.Min()), Mean: h.Mean() / 1e3,
		P50: us(h.ValueAtPercentile(50)), P90: us(h.ValueAtPercentile(90)),
		P99: us(h.ValueAtPercentile(99)), P999: us(h.ValueAtPercentile(99.9)),
		Max: us(h.Max()),
	}
}

// merged sums up what shards recorded: the latencies and the counts.
func merged(shards []shard) (*hdrhistogram.Histogram, tally) {
	h := newHist()
	var t tally
	for i := range shards {
		sh := &shards[i]
		sh.mu.Lock()
		h.Merge(sh.total)
		t.add(&sh.sum)
		t.add(&sh.tally)
		sh.mu.Unlock()
	}
	return h, t
}

// sent is what connections sent, and how many of their requests were
// never answered.
type sent struct{ requests, notifications, bytesOut, lost int64 }

func (tg *targetStats) sent() sent {
	return sent{tg.requests.Load(), tg.notifications.Load(), tg.bytesOut.Load(), tg.lost.Load()}
}

// summarize counts what a run, or a target of it, sent and got back
// (latencies h, answers t) over elapsed.
func summarize(h *hdrhistogram.Histogram, t *tally, sn sent, elapsed time.Duration) TargetReport {
	c := TargetReport{
		Requests: sn.requests, Notifications: sn.notifications, BytesSent: sn.bytesOut, Lost: sn.lost,
		Responses: t.responses, OK: t.ok, TransportErrors: t.transport, Mismatches: t.mismatches,
		Duplicates: t.duplicates, Unknown: t.unknown, BytesReceived: t.bytesIn,
		ErrorCodes: make(map[string]int64, len(t.codes)),
		LatencyUS:  latency(h),
	}
	for code, n := range t.codes {
		c.ErrorCodes[strconv.FormatInt(code, 10)] = n
	}
	c.Errors = t.errors + t.mismatches + sn.lost + t.duplicates + t.unknown
	if elapsed > 0 {
		c.ThroughputRPS = float64(t.responses) / elapsed.Seconds()
	}
	return c
}

// report fills r with the totals; the last interval must be ticked.
func (s *stats) report(r *Report, elapsed time.Duration) {
	h, t := merged(s.shards)
	var sn sent
	for k := range s.targets {
		o := s.targets[k].sent()
		sn.requests += o.requests
		sn.notifications += o.notifications
		sn.bytesOut += o.bytesOut
		sn.lost += o.lost
	}
	c := summarize(h, &t, sn, elapsed)
	r.DurationS = elapsed.Seconds()
	r.Requests, r.Notifications, r.Responses, r.OK, r.Errors = c.Requests, c.Notifications, c.Responses, c.OK, c.Errors
	r.ErrorCodes = c.ErrorCodes
	r.TransportErrors, r.Mismatches, r.Lost, r.Duplicates, r.Unknown = c.TransportErrors, c.Mismatches, c.Lost, c.Duplicates, c.Unknown
	r.ThroughputRPS, r.BytesSent, r.BytesReceived = c.ThroughputRPS, c.BytesSent, c.BytesReceived
	r.LatencyUS = c.LatencyUS
	for code, e := range t.samples {
		if r.ErrorSamples == nil {
			r.ErrorSamples = make(map[string]string)
		}
		r.ErrorSamples[strconv.FormatInt(code, 10)] = e
	}
	if h.TotalCount() > 0 {
		r.Percentiles = distribution(h)
	}
	s.mu.Lock()
	r.Timeline = append([]Interval(nil), s.timeline...)
	s.mu.Unlock()
}

// byTarget is the run's breakdown by target, in the order of ts (the
// stats' targets); failed counts each target's connections that could
// not be opened. The last interval must be ticked.
func (s *stats) byTarget(ts []target, conns int, failed []int, elapsed time.Duration) []TargetReport {
	out := make([]TargetReport, len(s.targets))
	for k := range s.targets {
		tg := &s.targets[k]
		h, t := merged(tg.shards)
		out[k] = summarize(h, &t, tg.sent(), elapsed)
		out[k].Target = ts[k].url
		out[k].Conns = connsOf(k, len(s.targets), conns)
		out[k].FailedConns = failed[k]
	}
	return out
}

// distribution samples the latency at percentiles spread evenly on a
// log scale of 1/(1-p), so that the tail has as many points as the body.
func distribution(h *hdrhistogram.Histogram) []Percentile {
	var ps []float64
	for _, decade := range []float64{0, 90, 99, 99.9, 99.99} {
		step := (100 - decade) / 10
		for i := range 9 {
			ps = append(ps, decade+float64(i)*step)
		}
	}
	ps = append(ps, 99.999, 100)
	sort.Float64s(ps)
	out := make([]Percentile, 0, len(ps))
	for _, p := range ps {
		v := h.ValueAtPercentile(p)
		if p == 100 {
			v = h.Max()
		}
		out = append(out, Percentile{Percentile: p, US: us(v)})
	}
	return out
}
