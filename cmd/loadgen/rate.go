package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// rate is -rate: a constant rate, or a ramp from one rate to another
// over a duration, then steady at the second ("1000:5000/30s"). In
// calls per second, over all connections together.
type rate struct {
	from, to float64
	over     time.Duration // 0: constant at to
	text     string
}

// parseRate reads -rate R or -rate A:B/DURATION.
func parseRate(s string) (rate, error) {
	bad := func(why string) (rate, error) {
		return rate{}, fmt.Errorf("-rate %s: %s; want R or A:B/DURATION (1000, 1000:5000/30s)", s, why)
	}
	num := func(t string) (float64, bool) {
		f, err := strconv.ParseFloat(t, 64)
		return f, err == nil && f > 0 && f < 1e9
	}
	r := rate{text: s}
	a, rest, ramp := strings.Cut(s, ":")
	if !ramp {
		f, ok := num(s)
		if !ok {
			return bad("not a positive number")
		}
		r.from, r.to = f, f
		return r, nil
	}
	b, d, ok := strings.Cut(rest, "/")
	if !ok {
		return bad("a ramp needs its duration")
	}
	var okA, okB bool
	r.from, okA = num(a)
	r.to, okB = num(b)
	if !okA || !okB {
		return bad("rates must be positive numbers")
	}
	over, err := time.ParseDuration(d)
	if err != nil || over <= 0 {
		return bad("bad duration")
	}
	r.over = over
	return r, nil
}

// at is the rate at t from the start.
func (r rate) at(t time.Duration) float64 {
	if r.over == 0 || t >= r.over {
		return r.to
	}
	if t < 0 {
		return r.from
	}
	return r.from + (r.to-r.from)*float64(t)/float64(r.over)
}

// pacer spaces one connection's sends at its share of the rate: the
// intended time of each call, which latency is measured from in an open
// loop (so that a stalled server is charged for the calls it kept
// waiting, coordinated omission corrected).
type pacer struct {
	r     rate
	share float64 // this connection's part of the rate
	next  time.Duration
}

// newPacer paces connection i of n: its first send is offset by i/n of
// an interval, so the connections do not send in step.
func newPacer(r rate, i, n int) *pacer {
	p := &pacer{r: r, share: 1 / float64(n)}
	p.next = time.Duration(float64(i) / float64(n) * p.interval(0))
	return p
}

// interval is the time between two sends of this connection at t.
func (p *pacer) interval(t time.Duration) float64 {
	return float64(time.Second) / (p.r.at(t) * p.share)
}

// take returns the intended time of the next send and moves on.
func (p *pacer) take() time.Duration {
	t := p.next
	p.next += time.Duration(p.interval(t))
	return t
}

// rateText says a -rate in words, for the report: "1,000 calls/s", or a
// ramp "1,000 → 5,000 calls/s over 30s". A text that is no -rate is
// returned as it is.
func rateText(s string) string {
	r, err := parseRate(s)
	if err != nil {
		return s
	}
	calls := func(f float64) string {
		if f == math.Trunc(f) && f < 1e15 {
			return thousands(int64(f))
		}
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	if r.over == 0 {
		return calls(r.to) + " calls/s"
	}
	return calls(r.from) + " → " + calls(r.to) + " calls/s over " + r.over.String()
}
