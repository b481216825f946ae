package pool

import "time"

// probeDivisor sets how deep a probe cuts: to the smaller of the limit and
// the slots in use, divided by this. A half is not enough: with few workers,
// half the in-use count can still queue, and the baseline it measures would
// then hold the limit at about four times the queue allowance however small
// the server.
const probeDivisor = 4

// control is the control law of an AdaptiveLimiter (its doc comment states
// the rule): it turns latency samples into a limit. It is plain state
// without locking; the limiter calls it under its mutex, so it is not safe
// for concurrent use on its own.
type control struct {
	min, max  float64
	window    int
	tolerance float64
	smoothing float64
	queue     float64
	interval  int

	est  float64 // the limit before rounding down, in [min, max]
	base float64 // the baseline latency in ns; 0 until the first window

	n          int     // utilised samples in the current window
	sum        float64 // their latencies, ns
	untilProbe int     // utilised samples left before the next probe

	probing bool
	skip    int     // releases left of work admitted before the probe
	saved   float64 // est when the probe began, restored when it ends
}

func newControl(o *AdaptiveOptions) control {
	return control{
		min:        float64(o.MinLimit),
		max:        float64(o.MaxLimit),
		window:     o.Window,
		tolerance:  o.Tolerance,
		smoothing:  o.Smoothing,
		queue:      float64(o.QueueSize),
		interval:   o.ProbeInterval,
		est:        float64(o.InitialLimit),
		untilProbe: o.Window, // the first probe follows the first window
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
	if lat <= 0 || 2*held < c.limit() {
		return c.limit() // no measurement, or no utilisation: no information
	}
	c.n++
	c.sum += float64(lat)
	c.untilProbe--
	if c.n < c.window {
		return c.limit()
	}
	short := c.sum / float64(c.n)
	c.n, c.sum = 0, 0
	if c.base == 0 {
		c.base = short
	}
	gradient := min(1, max(0.5, c.tolerance*c.base/short))
	target := c.est*gradient + c.queue
	c.est = min(c.max, max(c.min, c.est+c.smoothing*(target-c.est)))
	if c.untilProbe <= 0 {
		c.startProbe(held)
	}
	return c.limit()
}

// startProbe cuts the limit so that the next window measures the latency
// of a lightly loaded server. held counts the release in progress.
func (c *control) startProbe(held int) {
	c.probing = true
	c.saved = c.est
	c.est = max(c.min, float64(min(c.limit(), held)/probeDivisor))
	c.skip = held - 1 // the work still in flight began before the cut
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
	c.base = c.sum / float64(c.n)
	c.n, c.sum = 0, 0
	c.est = c.saved
	c.probing = false
	c.untilProbe = c.interval
}
