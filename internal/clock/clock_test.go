package clock

import (
	"runtime"
	"testing"
	"testing/synctest"
	"time"
)

// waitCalibrated waits until Now reads the counter, where it can; it reports
// whether it does.
func waitCalibrated(t testing.TB) bool {
	t.Helper()
	Now()
	if !usable {
		return false
	}
	deadline := time.Now().Add(10 * time.Second)
	for scale.Load() == nil {
		if time.Now().After(deadline) {
			t.Fatal("the counter is usable but Now was not calibrated within 10 s")
		}
		time.Sleep(calibration / 5)
		Now()
	}
	return true
}

func TestNow_usesTheCounterWhereLinuxKeepsTimeWithIt(t *testing.T) {
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skip("the counter is read on linux/amd64 only")
	}
	if !counterUsable() {
		t.Skip("this kernel does not keep time with the time-stamp counter")
	}
	if !waitCalibrated(t) {
		t.Fatal("the counter is usable but Now does not read it")
	}
}

func TestNow_keepsTimeWithTheMonotonicClock(t *testing.T) {
	waitCalibrated(t)
	for range 3 {
		c0, m0 := Now(), time.Since(epoch)
		time.Sleep(20 * time.Millisecond)
		c1, m1 := Now(), time.Since(epoch)
		dc, dm := c1-c0, m1-m0
		diff := dc - dm
		if diff < 0 {
			diff = -diff
		}
		// The two pairs of readings are each a few hundred nanoseconds
		// apart at most, unless the goroutine is descheduled between them.
		if diff > dm/1000+50*time.Microsecond {
			t.Errorf("over %v of the monotonic clock Now advanced %v", dm, dc)
		}
		// Now and time.Since share an origin: they agree to within
		// the calibration's error, far below a millisecond.
		if off := c1 - m1; off > time.Millisecond || off < -time.Millisecond {
			t.Errorf("Now is %v away from time.Since(epoch)", off)
		}
	}
}

func TestNow_neverGoesBackwards(t *testing.T) {
	waitCalibrated(t)
	prev := Now()
	for i := range 200_000 {
		if i%1000 == 0 {
			runtime.Gosched() // may move to another CPU
		}
		now := Now()
		if now < prev {
			t.Fatalf("Now went back from %v to %v", prev, now)
		}
		prev = now
	}
}

func TestLine_at(t *testing.T) {
	l := line{ticks0: 1000, ns0: 5 * time.Second, perTick: 0.5}
	for _, c := range []struct {
		t    uint64
		want time.Duration
	}{{1000, 5 * time.Second}, {1002, 5*time.Second + 1}, {1000 + 2e9, 6 * time.Second}} {
		if got := l.at(c.t); got != c.want {
			t.Errorf("at(%d) = %v, want %v", c.t, got, c.want)
		}
	}
}

func TestNow_allocatesNothing(t *testing.T) {
	if waitCalibrated(t) {
		// Before the calibration as well (slow).
		done.Store(false)
		defer done.Store(true)
		start = pair()
		if n := testing.AllocsPerRun(1000, func() { slow() }); n != 0 {
			t.Errorf("Now allocates %v times before it is calibrated", n)
		}
		done.Store(true)
	}
	if n := testing.AllocsPerRun(1000, func() { Now() }); n != 0 {
		t.Errorf("Now allocates %v times", n)
	}
}

func BenchmarkNow(b *testing.B) {
	if !waitCalibrated(b) {
		b.Log("Now is time.Since here")
	}
	var s time.Duration
	for b.Loop() {
		s += Now()
	}
	_ = s
}

func BenchmarkTimeSince(b *testing.B) {
	var s time.Duration
	for b.Loop() {
		s += time.Since(epoch)
	}
	_ = s
}

func TestMonotonic_followsFakeTime(t *testing.T) {
	waitCalibrated(t)
	undo := Monotonic()
	defer undo()
	synctest.Test(t, func(t *testing.T) {
		t0 := Now()
		time.Sleep(10 * time.Second)
		if d := Now() - t0; d != 10*time.Second {
			t.Errorf("10 s of fake time: Now advanced %v", d)
		}
	})
	undo()
	undo() // a second call does nothing
	if usable && scale.Load() == nil {
		t.Error("after undo, Now does not read the counter again")
	}
}
