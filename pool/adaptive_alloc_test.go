//go:build !race

package pool_test

import (
	"context"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/pool"
)

// TestAdaptiveLimiter_allocs: taking a free slot and releasing it, updates
// of the limit and probes included, allocates nothing.
func TestAdaptiveLimiter_allocs(t *testing.T) {
	l := pool.NewAdaptiveLimiter(&pool.AdaptiveOptions{InitialLimit: 1, Window: 2, ProbeInterval: 8})
	ctx := context.Background()
	lat := time.Millisecond
	if n := testing.AllocsPerRun(1000, func() {
		if err := l.Acquire(ctx); err != nil {
			t.Fatal(err)
		}
		l.Release(lat)
		if l.TryAcquire() {
			l.Release(lat)
		}
		lat += time.Microsecond // the limit moves
	}); n != 0 {
		t.Fatalf("AdaptiveLimiter allocates %v times, want 0", n)
	}
}
