package pool_test

import (
	"fmt"
	"time"

	"github.com/mcpwire/mcpwire/pool"
)

// An AdaptiveLimiter in front of a server that has 8 workers and needs 1ms
// per call: with n calls in flight, each one takes about n/8 ms. Whatever
// limit it starts from, the limiter settles near 1.5 × 8 + 4, where the
// queueing in the server stays within the tolerance.
func Example_adaptiveLimiter() {
	serverLatency := func(inFlight int) time.Duration {
		return time.Duration((inFlight+7)/8) * time.Millisecond
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
	// from 2 to 15
	// from 100 to 15
}
