package metrics

import (
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/mcpwire/mcpwire/codec"
)

func newTestCollector(t *testing.T) *Collector {
	t.Helper()
	c, err := New(prometheus.NewRegistry(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Past maxCodes distinct codes, a method's further codes share "other":
// the series stop growing, and nothing is lost from the total.
func TestCollector_boundsTheCodesOfAMethod(t *testing.T) {
	c := newTestCollector(t)
	const extra = 8
	for i := range maxCodes + extra {
		code := codec.Code(1000 + i)
		c.Answered("m", code, time.Millisecond)
		c.Answered("m", code, time.Millisecond) // the second finds it
	}
	c.Answered("m", 0, time.Millisecond)
	if n := testutil.CollectAndCount(c.requests); n != maxCodes+2 { // + "0" + "other"
		t.Errorf("%d series, want %d", n, maxCodes+2)
	}
	if v := testutil.ToFloat64(c.requests.WithLabelValues("m", otherCode)); v != 2*extra {
		t.Errorf(`code "other": %v, want %d`, v, 2*extra)
	}
	if v := testutil.ToFloat64(c.requests.WithLabelValues("m", strconv.Itoa(1000))); v != 2 {
		t.Errorf(`code "1000": %v, want 2`, v)
	}
	if n := len(*c.method("m").codes.m.Load()); n != maxCodes {
		t.Errorf("the code map holds %d entries, want %d", n, maxCodes)
	}
}

// Many goroutines meeting new methods and codes at once lose no count.
func TestCollector_countsExactlyUnderConcurrentFirstUse(t *testing.T) {
	c := newTestCollector(t)
	const goroutines, each = 8, 200
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for i := range each {
				method := "m" + strconv.Itoa(i%5)
				switch (g + i) % 3 {
				case 0:
					c.Answered(method, 0, time.Microsecond)
				case 1:
					c.Answered(method, codec.CodeInvalidParams, time.Microsecond)
				default:
					c.Refused(method, codec.CodeOverloaded)
				}
				c.InFlight(1)
				c.InFlight(-1)
			}
		})
	}
	wg.Wait()
	var total, rejected float64
	for i := range 5 {
		m := "m" + strconv.Itoa(i)
		for _, code := range []string{"0", "-32602", "-32000"} {
			total += testutil.ToFloat64(c.requests.WithLabelValues(m, code))
		}
		rejected += testutil.ToFloat64(c.rejected.WithLabelValues(m))
	}
	if total != goroutines*each {
		t.Errorf("requests: %v, want %d", total, goroutines*each)
	}
	var refusals float64
	for g := range goroutines {
		for i := range each {
			if (g+i)%3 == 2 {
				refusals++
			}
		}
	}
	if rejected != refusals {
		t.Errorf("rejected: %v, want %v", rejected, refusals)
	}
	if n := c.inFlight.Load(); n != 0 {
		t.Errorf("in flight: %d", n)
	}
}
