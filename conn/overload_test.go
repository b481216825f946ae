package conn_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/pool"
)

// The overload checks run in synctest virtual time: handlers sleep and
// clients keep their schedule on the bubble's clock, so every latency is
// exact and every bound below holds on any machine, under -race too. They
// measure the pool: every request goes to its W workers.

// Two sessions offer a pool of W workers (handler sleeping S) twice its
// capacity for D, refused past a shared Admission limit of 2W. Then:
//
//   - the pool's queue holds at most 2W − W tasks: whenever it is sampled
//     (between the ticks, when the bubble is at rest) the W workers are
//     busy and the limit counts the rest; it reaches that bound, so the
//     overload did build a queue;
//   - every request is answered once, with a result or -32000 carrying the
//     pool's retry hint: accepted + rejected = sent;
//   - a refusal is answered at the tick its request was sent;
//   - an accepted request waits at most one service time for a worker
//     (FIFO, at most W ahead of it), so its latency is at most 2S;
//   - the workers stay busy: accepted is about the capacity W/S × D.
func TestConn_overloadKeepsTheQueueAndLatencyBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const (
			workers = 8
			service = 4 * time.Millisecond
			limit   = 2 * workers
			hint    = 20 * time.Millisecond
			tick    = time.Millisecond
			ticks   = 200
		)
		// Each of the two sessions sends W/S per ms: 2× capacity in all.
		l := load{method: "work", perTick: workers * int(tick) / int(service), tick: tick, ticks: ticks, retryAfter: hint}
		p := startPool(t, &pool.Options{Workers: workers, RetryAfter: hint}) // queue 16 × W: never full
		adm := pool.NewLimiter(limit)
		clients, stop := sessions(2, conn.Options{Router: workRouter(service), Pool: p, Admission: adm, Overload: pool.Reject})

		samples, maxQueue := 0, 0
		quit, sampled := make(chan struct{}), make(chan struct{})
		go func() {
			defer close(sampled)
			time.Sleep(tick / 20) // off the ticks: nothing else runs then
			tk := time.NewTicker(tick / 10)
			defer tk.Stop()
			for {
				select {
				case <-tk.C:
					samples++
					maxQueue = max(maxQueue, p.QueueLen())
				case <-quit:
					return
				}
			}
		}()
		r := offerAll(t, clients, l)
		close(quit)
		<-sampled
		stop()

		sent := 2 * l.total()
		accepted, rejected := len(r.accepted), len(r.rejected)
		maxAccepted, maxRejected := maxOf(r.accepted), maxOf(r.rejected)
		t.Logf("sent %d: accepted %d (latency max %v, p99 %v), rejected %d (latency max %v); queue max %d in %d samples",
			sent, accepted, maxAccepted, p99(r.accepted), rejected, maxRejected, maxQueue, samples)
		if accepted+rejected != sent {
			t.Errorf("accepted %d + rejected %d != sent %d", accepted, rejected, sent)
		}
		if maxQueue > limit-workers || maxQueue < limit-workers {
			t.Errorf("queue depth reached %d, want exactly the bound %d the shared limit leaves", maxQueue, limit-workers)
		}
		if maxRejected >= tick {
			t.Errorf("a refusal took %v, want it answered at the tick it was sent", maxRejected)
		}
		if maxAccepted > 2*service {
			t.Errorf("an accepted request took %v, want at most %v", maxAccepted, 2*service)
		}
		// Every accepted request ran for S on one of W workers between 0
		// and the last tick + 2S; and the workers are all busy from the
		// second tick on.
		capacity := func(d time.Duration) int { return int(d / service * workers) }
		if most, least := capacity(ticks*tick+2*service), capacity(ticks*tick)*95/100; accepted > most || accepted < least {
			t.Errorf("accepted %d, want within [%d, %d]", accepted, least, most)
		}
		if n := adm.InUse(); n != 0 {
			t.Errorf("%d slots of the shared limit still held", n)
		}
	})
}

// overloadP99 is what one run of runOverload measured.
type overloadP99 struct {
	unloaded, loaded   time.Duration // p99 of accepted requests
	accepted, rejected int           // under load
	unloadedRejected   int           // refused at half the capacity
}

// ratio is the loaded p99 over the unloaded one.
func (m overloadP99) ratio() float64 { return float64(m.loaded) / float64(m.unloaded) }

// runOverload runs two sessions on a pool of workers workers (handler
// sleeping service) with adm as their shared Admission, a connection limit
// and a pool queue large enough never to refuse: first at half the
// capacity for idleTicks ticks of 4 × service/workers, then at twice the
// capacity for loadTicks ticks of 1ms. The capacity, workers/service, must
// be a whole number of requests per 2ms. In a synctest bubble it runs in
// virtual time; the benchmarks run it in real time.
func runOverload(tb testing.TB, adm pool.Admission, workers int, service time.Duration, idleTicks, loadTicks int) overloadP99 {
	const (
		hint = 20 * time.Millisecond
		huge = 1 << 16
	)
	p, err := pool.New(&pool.Options{Workers: workers, Queue: huge, RetryAfter: hint})
	if err != nil {
		tb.Fatal(err)
	}
	defer p.Close(context.Background())
	clients, stop := sessions(2, conn.Options{Router: workRouter(service), Pool: p, Admission: adm, MaxInFlight: huge, Overload: pool.Reject})
	defer stop()

	// Half the capacity: one request per session every 4 × service/workers.
	unloaded := offerAll(tb, clients, load{method: "work", perTick: 1, tick: 4 * service / time.Duration(workers), ticks: idleTicks, retryAfter: hint})
	// Twice the capacity: workers/service per ms on each session.
	loaded := offerAll(tb, clients, load{method: "work", perTick: workers * int(time.Millisecond) / int(service), tick: time.Millisecond, ticks: loadTicks, retryAfter: hint})
	return overloadP99{
		unloaded: p99(unloaded.accepted), loaded: p99(loaded.accepted),
		accepted: len(loaded.accepted), rejected: len(loaded.rejected),
		unloadedRejected: len(unloaded.rejected),
	}
}

// With an AdaptiveLimiter (default options) as the shared Admission, half
// the capacity is refused nothing, and twice the capacity keeps the p99
// latency of accepted requests within 2× of the unloaded p99: the limiter
// refuses what would only queue. With a fixed limit too large to refuse
// anything, the same load builds a queue and the p99 grows far past it:
// the check can fail.
//
// The server has 20 workers and a 20ms handler. With fewer, the limit
// the load steps up from (the initial one) is a larger multiple of the
// capacity, and the queue it lets in before it comes down a larger share
// of the p99: with 8 workers and a 4ms handler, the p99 is 2.5× the
// unloaded one.
func TestConn_adaptiveLimitKeepsP99NearUnloaded(t *testing.T) {
	const (
		workers = 20
		service = 20 * time.Millisecond
		ticks   = 1000 // 1s of virtual time at 2× capacity
	)
	var adaptive, fixed overloadP99
	synctest.Test(t, func(t *testing.T) {
		adaptive = runOverload(t, pool.NewAdaptiveLimiter(nil), workers, service, 200, ticks)
	})
	synctest.Test(t, func(t *testing.T) {
		fixed = runOverload(t, pool.NewLimiter(1<<16), workers, service, 200, ticks)
	})
	for _, v := range []struct {
		name string
		m    overloadP99
	}{{"adaptive", adaptive}, {"fixed", fixed}} {
		t.Logf("%s: p99 unloaded %v, at 2× capacity %v (×%.2f); accepted %d, rejected %d (at half the capacity: %d)",
			v.name, v.m.unloaded, v.m.loaded, v.m.ratio(), v.m.accepted, v.m.rejected, v.m.unloadedRejected)
	}
	if adaptive.unloaded != service || fixed.unloaded != service {
		t.Errorf("p99 at half the capacity: %v and %v, want the handler's %v (no queue)", adaptive.unloaded, fixed.unloaded, service)
	}
	if adaptive.unloadedRejected != 0 {
		t.Errorf("adaptive limit: %d refused at half the capacity, want none", adaptive.unloadedRejected)
	}
	if adaptive.loaded > 2*adaptive.unloaded {
		t.Errorf("adaptive limit: p99 %v under load, want within 2× of the unloaded %v", adaptive.loaded, adaptive.unloaded)
	}
	if fixed.rejected != 0 {
		t.Errorf("fixed limit: %d refused, want none (the limit is never reached)", fixed.rejected)
	}
	if fixed.loaded <= 10*fixed.unloaded {
		t.Errorf("fixed limit: p99 %v under load, want well past 2× (over 10×) the unloaded %v: a queue builds", fixed.loaded, fixed.unloaded)
	}
}

// maxOf returns the largest of d, or 0.
func maxOf(d []time.Duration) time.Duration {
	var m time.Duration
	for _, x := range d {
		m = max(m, x)
	}
	return m
}
