package pool_test

import (
	"context"
	"strconv"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpwire/mcpwire/pool"
)

// simResult is what simulate measured over the second half of its run.
type simResult struct {
	meanLimit   float64       // Limit() averaged over the releases
	minLimit    int           // lowest Limit() seen at a release
	maxLimit    int           // highest Limit() seen at a release
	throughput  float64       // completions per service time
	meanLatency time.Duration // time in the server, queueing included
}

// simulate runs, in virtual time (call it inside a synctest bubble), a fake
// server of workers goroutines, each serving one job at a time for service;
// jobs wait FIFO for a free worker. clients goroutines call it through l in
// a closed loop, thinking for thinkTime between calls, until total calls
// have completed.
func simulate(l *pool.AdaptiveLimiter, workers, clients, total int, service, thinkTime time.Duration) simResult {
	jobs := make(chan chan struct{}) // blocked senders queue FIFO
	var servers sync.WaitGroup
	for range workers {
		servers.Go(func() {
			for done := range jobs {
				time.Sleep(service)
				close(done)
			}
		})
	}
	var (
		mu       sync.Mutex
		finished int
		r        = simResult{minLimit: int(^uint(0) >> 1)}
		n        int
		sumLim   int
		sumLat   time.Duration
		from     time.Time
	)
	var cs sync.WaitGroup
	for range clients {
		cs.Go(func() {
			for {
				if err := l.Acquire(context.Background()); err != nil {
					panic(err)
				}
				start := time.Now()
				done := make(chan struct{})
				jobs <- done
				<-done
				lat := time.Since(start)
				l.Release(lat)

				mu.Lock()
				finished++
				stop := finished >= total
				switch {
				case finished == total/2:
					from = time.Now()
				case finished > total/2 && !stop:
					lim := l.Limit()
					n++
					sumLim += lim
					sumLat += lat
					r.minLimit = min(r.minLimit, lim)
					r.maxLimit = max(r.maxLimit, lim)
				case finished == total:
					r.throughput = float64(n) / float64(time.Since(from)) * float64(service)
				}
				mu.Unlock()
				if stop {
					return
				}
				time.Sleep(thinkTime)
			}
		})
	}
	cs.Wait()
	close(jobs)
	servers.Wait()
	r.meanLimit = float64(sumLim) / float64(n)
	r.meanLatency = sumLat / time.Duration(n)
	return r
}

// TestAdaptiveLimiter_simulation: a server of W workers with a fixed
// service time, offered twice its capacity by 4W clients that each think
// for one service time between calls. Whether the limit starts far below
// or above, it settles near the capacity, the server stays busy, and the
// queueing in it is less than the clients alone would cause (3 service
// times: 4W calls in a cycle of latency + think at W per service time).
func TestAdaptiveLimiter_simulation(t *testing.T) {
	const (
		workers = 8
		service = 10 * time.Millisecond
		total   = 12000
	)
	for _, start := range []int{1, 4 * workers} {
		t.Run("from="+strconv.Itoa(start), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				l := pool.NewAdaptiveLimiter(&pool.AdaptiveOptions{InitialLimit: start})
				r := simulate(l, workers, 4*workers, total, service, service)
				t.Logf("limit mean %.1f [%d, %d], throughput %.2f per service time (capacity %d), latency %v",
					r.meanLimit, r.minLimit, r.maxLimit, r.throughput, workers, r.meanLatency)
				if r.meanLimit < workers/2 || r.meanLimit > 3*workers {
					t.Errorf("mean limit %.1f, want within [%d, %d]", r.meanLimit, workers/2, 3*workers)
				}
				if r.maxLimit > 4*workers {
					t.Errorf("limit rose to %d", r.maxLimit)
				}
				if r.throughput < 0.8*workers {
					t.Errorf("throughput %.2f per service time, want at least 80%% of %d", r.throughput, workers)
				}
				if r.meanLatency > 5*service/2 {
					t.Errorf("mean latency %v, want at most 2.5 service times", r.meanLatency)
				}
				if l.InUse() != 0 {
					t.Errorf("InUse %d at the end", l.InUse())
				}
			})
		})
	}
}
