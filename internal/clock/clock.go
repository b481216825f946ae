// Package clock is the monotonic clock mcpwire times requests with: the
// same time as time.Since on a fixed origin, read more cheaply where the
// platform allows.
//
// Reading Go's monotonic clock costs a call into the vDSO, which orders
// the CPU's time-stamp counter read with a fence: about 20 ns on the
// machines we measure, a tenth of a small pipelined request. Where Linux
// itself keeps time with the time-stamp counter (its clocksource is "tsc":
// the kernel found the counter invariant and in step on every CPU), Now
// reads the counter directly, without the fence, and scales it by a rate
// calibrated against the monotonic clock; elsewhere, and until that
// calibration is made, Now is time.Since. A reading may be a few
// instructions early or late: Now is for latencies, not for ordering
// events between goroutines.
package clock

import (
	"sync"
	"sync/atomic"
	"time"
)

// epoch is the origin of Now.
var epoch = time.Now()

// calibration is how long the counter is compared with the monotonic clock
// before Now reads the counter: long enough that the two readings' own
// spread (tens of nanoseconds) is below a millionth of it.
const calibration = 50 * time.Millisecond

// A counter runs at 10 MHz to 100 GHz: a rate outside says the
// calibration's readings were wrong (say, taken in fake time), and Now
// keeps to the monotonic clock.
const (
	minPerTick = 0.01
	maxPerTick = 100
)

// line maps counter readings to Now: at counter value ticks0, Now was ns0;
// each tick is perTick nanoseconds.
type line struct {
	ticks0  uint64
	ns0     time.Duration
	perTick float64
}

// at returns Now at counter value t (t-ticks0 fits an int64 for a century
// of ticks at 3 GHz, and a signed conversion is one instruction).
func (l *line) at(t uint64) time.Duration {
	return l.ns0 + time.Duration(float64(int64(t-l.ticks0))*l.perTick)
}

var (
	scale atomic.Pointer[line] // what Now reads the counter by; nil: Now is time.Since

	detect sync.Once
	start  line // the first paired reading, ticks0 and ns0 only; valid when usable
	usable bool // the counter can serve Now
	done   atomic.Bool

	mu         sync.Mutex   // guards calibrated, the setting of forced, and of scale
	calibrated *line        // the counter's line, once made
	forced     atomic.Int32 // Monotonic calls not yet undone
)

// Now returns the monotonic time since the process started (near enough:
// since this package was initialised). Safe for concurrent use; never
// allocates.
func Now() time.Duration {
	if l := scale.Load(); l != nil {
		return l.at(ticks())
	}
	return slow()
}

// slow is Now by the monotonic clock, calibrating the counter on the way
// once it can be.
func slow() time.Duration {
	if forced.Load() > 0 {
		return time.Since(epoch) // perhaps fake: not a time to calibrate by
	}
	detect.Do(func() {
		if usable = counterUsable(); usable {
			start = pair()
		}
	})
	if !usable || done.Load() {
		return time.Since(epoch)
	}
	now := pair()
	if now.ns0-start.ns0 >= calibration && done.CompareAndSwap(false, true) {
		l := now // on the heap, unlike now: every call before this one
		l.perTick = float64(l.ns0-start.ns0) / float64(l.ticks0-start.ticks0)
		if l.ticks0 > start.ticks0 && l.perTick > minPerTick && l.perTick < maxPerTick {
			mu.Lock()
			calibrated = &l
			if forced.Load() == 0 {
				scale.Store(calibrated)
			}
			mu.Unlock()
		}
	}
	return now.ns0
}

// Monotonic makes Now return time.Since on its origin, and nothing else,
// until undo is called: for tests whose time is fake (in a
// testing/synctest bubble only time.Since follows it). Calls may overlap;
// the counter is read again once every undo has been called.
func Monotonic() (undo func()) {
	mu.Lock()
	forced.Add(1)
	scale.Store(nil)
	mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			mu.Lock()
			if forced.Add(-1) == 0 && calibrated != nil {
				scale.Store(calibrated)
			}
			mu.Unlock()
		})
	}
}

// pair reads the counter and the monotonic clock together.
func pair() line {
	t := ticks()
	ns := time.Since(epoch)
	return line{ticks0: t, ns0: ns}
}
