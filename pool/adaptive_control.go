package pool

import "time"

// probeDivisor sets how deep a probe cuts: to the smaller of the limit and
// the slots in use, divided by this. The first probe follows slow start,
// whose last step may have taken the limit well past the capacity; cut by
// half only, the server could still queue, and the baseline it measured
// would hold the limit too high until the next probe.
const probeDivisor = 4

// slowStartGrowth is what slow start multiplies a full limit by, once a
// round trip. Doubling, as TCP does, can overshoot a server's capacity
// twice over, and the overshoot is work queued until the limit comes back
// down; 1.5 overshoots less and climbs a little slower. Measured: stepped
// from half to twice its capacity, 20 workers saw a p99 of 1.50 times the
// unloaded one (doubling: 1.55); ramping from the default limit to 128
// workers' load at 90%, 2.5% of the first 20,000 calls were refused
// (doubling: 2.0%).
const slowStartGrowth = 1.5

// rebaseGrowth is how much higher than the last a baseline a probe
// measures must be to restart slow start.
const rebaseGrowth = 1.25

// probeSpacing is, when ProbeInterval is left to its default, the least
// number of utilised samples between two probes per slot of the limit. A
// probe costs about one latency at a quarter of the limit, so its share of
// the throughput grows with the limit unless the interval does: a server
// of 128 workers offered twice its capacity was busy 93% of the time with
// a probe every 2048 samples, 96% with one every 32 × limit.
const probeSpacing = 32

// control is the control law of an AdaptiveLimiter (its doc comment states
// the rule): it turns latency samples into a limit. It is plain state
// without locking; the limiter calls it under its mutex, so it is not safe
// for concurrent use on its own.
type control struct {
	min, max  float64
	window    int
	tolerance float64
	smoothing float64
	queue     float64 // the least allowance for queueing
	headroom  float64 // the allowance as a fraction of the limit
	interval  int     // ProbeInterval; 0: the default, which follows the limit

	est   float64 // the limit before rounding down, in [min, max]
	slow  bool    // slow start: no window has been slower than the baseline yet
	armed bool    // slow start: the last window found the limit full
	base  float64 // the baseline latency in ns; 0 until the first window

	n          int     // utilised samples in the current window
	sum        float64 // their latencies, ns
	full       bool    // one of them ran with every slot in use
	untilProbe int     // utilised samples left before the next probe
	settle     int     // releases left of work admitted before the last cut

	probing bool
	skip    int     // releases left of work admitted before the probe
	saved   float64 // est when the probe began, restored when it ends
}

func newControl(o *AdaptiveOptions) control {
	return control{
		min:       float64(o.MinLimit),
		max:       float64(o.MaxLimit),
		window:    o.Window,
		tolerance: o.Tolerance,
		smoothing: o.Smoothing,
		queue:     float64(o.QueueSize),
		headroom:  o.Headroom,
		interval:  o.ProbeInterval,
		est:       float64(o.InitialLimit),
		slow:      true, // the first window slower than the baseline ends it
	}
}

// limit is the current limit, rounded down.
func (c *control) limit() int { return int(c.est) }

// observe takes one release: lat is how long the work ran (<= 0: not
// measured), held the slots in use counting the one being released. It
// returns the new limit.
func (c *control) observe(lat time.Duration, held int) int {
	if c.probing {
		c.probeSample(lat)
		return c.limit()
	}
	if c.settle > 0 {
		c.settle--
		return c.limit()
	}
	if lat <= 0 || 2*held < c.limit() {
		return c.limit() // no measurement, or no utilisation: no information
	}
	c.n++
	c.sum += float64(lat)
	c.full = c.full || held >= c.limit()
	if !c.slow {
		c.untilProbe--
	}
	if c.n < c.window {
		return c.limit()
	}
	short, full := c.sum/float64(c.n), c.full
	c.n, c.sum, c.full = 0, 0, false
	if c.base == 0 {
		c.base = short
	}
	gradient := min(1, max(0.5, c.tolerance*c.base/short))
	if c.slow && gradient == 1 && full {
		// Slow start: a limit the load reached, at the baseline latency,
		// grows by a factor, once a round trip: the work in flight was
		// admitted under the old limit, so its latencies say nothing of
		// the new one. The first window that finds the limit full only
		// arms it: when the load steps up, the work that filled the limit
		// has not finished yet, and the window's latencies are older.
		if c.armed {
			c.est = min(c.max, slowStartGrowth*c.est)
		}
		c.armed, c.settle = true, held-1
		return c.limit()
	}
	c.armed = false

	smoothing := c.smoothing
	if c.slow && gradient < 1 {
		// The first window slower than the baseline ends slow start: the
		// limit grew past the capacity, so it goes all the way to its
		// target at once, and a probe checks the baseline now.
		c.slow, c.untilProbe, smoothing = false, 0, 1
	}
	target := c.est*gradient + max(c.queue, c.headroom*c.est)
	if target < c.est {
		// A cut goes all the way, once: the work in flight was admitted
		// under the old limit, so its latencies say nothing of the new one.
		smoothing, c.settle = 1, held-1
	}
	c.est = min(c.max, max(c.min, c.est+smoothing*(target-c.est)))
	if c.slow {
		return c.limit() // no probe in slow start
	}
	c.untilProbe = min(c.untilProbe, c.probeInterval()) // the limit may have fallen
	if c.untilProbe <= 0 {
		c.startProbe(held)
	}
	return c.limit()
}

// probeInterval is how many utilised samples there are to be between two
// probes at the current limit.
func (c *control) probeInterval() int {
	if c.interval != 0 {
		return c.interval
	}
	return max(DefaultProbeInterval, probeSpacing*c.limit())
}

// startProbe cuts the limit so that the next window measures the latency
// of a lightly loaded server. held counts the release in progress.
func (c *control) startProbe(held int) {
	c.probing = true
	c.saved = c.est
	c.est = max(c.min, float64(min(c.limit(), held)/probeDivisor))
	c.skip = held - 1 // the work still in flight began before the cut
	c.settle = 0      // the probe's skip covers it
}

// probeSample feeds a release made during a probe: first the releases of
// the work admitted before it, ignored; then a window of samples at the
// reduced limit, utilised or not, whose mean becomes the baseline. The
// limit the probe interrupted is then restored.
func (c *control) probeSample(lat time.Duration) {
	if c.skip > 0 {
		c.skip--
		return
	}
	if lat <= 0 {
		return
	}
	c.n++
	c.sum += float64(lat)
	if c.n < c.window {
		return
	}
	base := c.sum / float64(c.n)
	// A baseline that rose for good made the limit fall for latency that
	// was not queueing: slow start climbs back, faster than the allowance.
	c.slow = base > rebaseGrowth*c.base
	c.base = base
	c.n, c.sum = 0, 0
	c.est = c.saved
	c.probing = false
	c.untilProbe = c.probeInterval()
}
