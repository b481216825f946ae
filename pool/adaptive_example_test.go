package pool_test

import (
	"fmt"
	"time"

	"github.com/mcpwire/mcpwire/pool"
)

// An AdaptiveLimiter in front of a server that has 8 workers and needs 1ms
// per call: with n > 8 calls in flight, each one takes n/8 ms. Whatever
// limit it starts from, the limiter settles at 9: the server's capacity,
// and one call queued (the allowance, QueueSize) so that no worker idles.
func Example_adaptiveLimiter() {
	serverLatency := func(inFlight int) time.Duration {
		return time.Duration(max(inFlight, 8)) * time.Millisecond / 8
	}
	// A caller takes a slot (Acquire waits for one, TryAcquire does not),
	// runs the work, and gives the slot back with how long the work ran:
	//
	//	start := time.Now()
	//	work()
	//	l.Release(time.Since(start))
	//
	// Here a round runs as many calls at once as the limiter admits, and
	// their latency comes from the model above.
	round := func(l *pool.AdaptiveLimiter) {
		n := 0
		for l.TryAcquire() {
			n++
		}
		for range n {
			l.Release(serverLatency(n))
		}
	}
	for _, start := range []int{2, 100} {
		l := pool.NewAdaptiveLimiter(&pool.AdaptiveOptions{InitialLimit: start})
		for range 500 {
			round(l)
		}
		fmt.Printf("from %d to %d\n", start, l.Limit())
	}
	// Output:
	// from 2 to 9
	// from 100 to 9
}
