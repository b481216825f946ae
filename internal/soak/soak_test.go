package soak

import (
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// size is the shape of a soak run.
type size struct {
	requests int    // messages in all, notifications included
	clients  int    // connections open at once, each a client's
	window   int    // requests unanswered at once on a connection
	perConn  [2]int // messages a connection carries: a uniform draw in [min, max]
	cut      float64
	// heapSlack bounds the growth of HeapInuse over the run.
	heapSlack uint64
}

// shortSize is a soak small enough for any build.
var shortSize = size{requests: 20_000, clients: 16, window: 16, perConn: [2]int{100, 1_500}, cut: 0.2, heapSlack: 8 << 20}

// connTimeout bounds one connection of the soak, far past what a healthy
// one takes (well under a second): a missing answer fails the connection
// then.
const connTimeout = 30 * time.Second

// longFor is how long MCPWIRE_SOAK=long soaks.
const longFor = 10 * time.Minute

// TestSoak_faultsAndCutsLoseNoAnswerAndLeakNothing runs the soak (see the
// package comment) at the build's size (soakSize) over loopback TCP, then
// a fifth of it over OS pipes; MCPWIRE_SOAK=short a small one,
// MCPWIRE_SOAK=long rounds of both for longFor.
func TestSoak_faultsAndCutsLoseNoAnswerAndLeakNothing(t *testing.T) {
	sz := soakSize
	rounds, until := 1, time.Time{}
	switch os.Getenv("MCPWIRE_SOAK") {
	case "short":
		sz = shortSize
	case "long":
		rounds, until = 1<<30, time.Now().Add(longFor)
	}
	before := measure(t)
	for round := 0; round < rounds && !t.Failed(); round++ {
		seed := uint64(time.Now().UnixNano())
		soak(t, sz, false, seed)
		// The same over OS pipes, as a stdio server is served: a fifth of
		// the messages.
		pipeSz := sz
		pipeSz.requests /= 5
		soak(t, pipeSz, true, seed+1)
		if !until.IsZero() && time.Now().After(until) {
			break
		}
	}
	after := settle(t, before)
	t.Logf("goroutines %d → %d, descriptors %d → %d, HeapInuse %.1f → %.1f MiB",
		before.goroutines, after.goroutines, before.fds, after.fds, mib(before.heap), mib(after.heap))
	if after.goroutines > before.goroutines {
		t.Errorf("%d goroutines after the soak, %d before", after.goroutines, before.goroutines)
	}
	if after.fds > before.fds {
		t.Errorf("%d descriptors open after the soak, %d before", after.fds, before.fds)
	}
	if after.heap > before.heap+sz.heapSlack {
		t.Errorf("HeapInuse grew from %.1f to %.1f MiB, want at most %.1f MiB more",
			mib(before.heap), mib(after.heap), mib(sz.heapSlack))
	}
}

// soak runs one round of sz against a new server, seeded with seed, and
// checks every connection's answers and every handler's runs.
func soak(t *testing.T, sz size, pipes bool, seed uint64) {
	t.Logf("soak: %d messages from %d clients over %s, seed %d", sz.requests, sz.clients, map[bool]string{false: "TCP", true: "pipes"}[pipes], seed)
	srv := startServer(t, sz.requests)

	var (
		remaining atomic.Int64
		nextID    atomic.Uint64
		mu        sync.Mutex
		plans     []*plan
		failures  []string
		totals    connResult
		cutAns    int
		cuts      int
	)
	remaining.Store(int64(sz.requests))
	fail := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		if len(failures) < 20 {
			failures = append(failures, fmt.Sprintf(format, args...))
		}
	}
	start := time.Now()
	var wg sync.WaitGroup
	for c := range sz.clients {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(seed, uint64(c)))
			for {
				n := sz.perConn[0] + r.IntN(sz.perConn[1]-sz.perConn[0]+1)
				left := remaining.Add(int64(-n))
				if left+int64(n) <= 0 {
					return
				}
				if left < 0 {
					n += int(left)
				}
				p := newPlan(r, nextID.Add(uint64(n))-uint64(n), n, sz.cut)
				dial := srv.dialTCP
				if pipes {
					dial = srv.dialPipes
				}
				res, err := p.run(dial, sz.window, time.Now().Add(connTimeout))
				mu.Lock()
				plans = append(plans, p)
				totals.answers += res.answers
				totals.timeouts += res.timeouts
				if p.cutAt >= 0 {
					cuts++
					cutAns += res.answers
				}
				mu.Unlock()
				if err != nil {
					p.failed = true // its runs are checked as a cut one's
					fail("ids %d–%d (cut at %d): %v", p.base, p.base+uint64(n)-1, p.cutAt, err)
					if p.cutAt < 0 {
						return // no point going on: the report says why
					}
				}
			}
		})
	}
	wg.Wait()
	took := time.Since(start)
	srv.stop(t)
	for _, f := range failures {
		t.Error(f)
	}

	// Every handler ran at most once: those of connections that were not
	// cut, notifications included, exactly once; those of the messages a
	// cut connection wrote before its cut at most once (the server may not
	// have read them: a reset, or the answers it wrote to the closed
	// socket, make it drop them), those after the cut never.
	var byKind [kinds]int
	bad := 0
	for _, p := range plans {
		for i, k := range p.kinds {
			byKind[k]++
			runs := srv.runs[p.base+uint64(i)].Load()
			want, atMost := uint32(1), false
			switch {
			case p.failed:
				atMost = true
			case p.cutAt < 0:
			case i > p.cutAt:
				want = 0
			default:
				atMost = true
			}
			if runs == want || atMost && runs < want {
				continue
			}
			if bad++; bad <= 10 {
				t.Errorf("id %d (%s, cut at %d, reset %v): its handler ran %d times, want %d",
					p.base+uint64(i), methods[k], p.cutAt, p.reset, runs, want)
			}
		}
	}
	if n := srv.badIDs.Load(); n > 0 {
		t.Errorf("%d handlers could not read their id", n)
	}
	sent := 0
	for _, n := range byKind {
		sent += n
	}
	if sent != sz.requests {
		t.Errorf("%d messages sent, want %d", sent, sz.requests)
	}
	// A call may be answered -32012 when the machine is so loaded that
	// its handler's goroutine stalls past HandlerTimeout (seen: 1 panic
	// in 10,000 at 500 ms, load 14 on 2 cores); a few are tolerated, not
	// many.
	if totals.timeouts > sz.requests/1000 {
		t.Errorf("%d calls other than overruns answered -32012, want at most %d", totals.timeouts, sz.requests/1000)
	}
	t.Logf("soak: %d messages in %v (%.0f/s), %d answers, on %d connections (%d cut, %d answers before their cuts): "+
		"%d ok, %d slow, %d errors, %d panics, %d overruns, %d notifications; %d other calls timed out",
		sent, took.Round(time.Millisecond), float64(sent)/took.Seconds(), totals.answers, len(plans), cuts, cutAns,
		byKind[kindOK], byKind[kindSlow], byKind[kindFail], byKind[kindPanic], byKind[kindOverrun], byKind[kindNote],
		totals.timeouts)
}

// usage is what the soak must give back.
type usage struct {
	goroutines int
	fds        int
	heap       uint64 // HeapInuse after a collection
}

func measure(t *testing.T) usage {
	runtime.GC()
	runtime.GC() // a second cycle empties the sync.Pools the first one moved aside
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("descriptors cannot be counted here: %v", err)
	}
	return usage{goroutines: runtime.NumGoroutine(), fds: len(fds), heap: ms.HeapInuse}
}

// settle measures until goroutines and descriptors are back to before,
// for up to 15 s: the default workers leave when their last connection
// has ended, sockets close as their sessions end.
func settle(t *testing.T, before usage) usage {
	var u usage
	for end := time.Now().Add(15 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		u = measure(t)
		if u.goroutines <= before.goroutines && u.fds <= before.fds || time.Now().After(end) {
			return u
		}
	}
}

func mib(b uint64) float64 { return float64(b) / (1 << 20) }
