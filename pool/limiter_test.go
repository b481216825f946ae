package pool_test

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/pool"
)

func TestLimiter_basics(t *testing.T) {
	l := pool.NewLimiter(2)
	if l.Cap() != 2 || l.InUse() != 0 {
		t.Fatalf("Cap %d InUse %d", l.Cap(), l.InUse())
	}
	if !l.TryAcquire() || l.Acquire(context.Background()) != nil {
		t.Fatal("could not take two slots")
	}
	if l.TryAcquire() {
		t.Fatal("took a third slot")
	}
	if l.InUse() != 2 {
		t.Fatalf("InUse %d", l.InUse())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	if err := l.Acquire(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Acquire on a full limiter = %v", err)
	}
	l.Release(0)
	if l.InUse() != 1 {
		t.Fatalf("InUse %d", l.InUse())
	}
	// A free slot is taken even with a done ctx.
	if err := l.Acquire(ctx); err != nil {
		t.Fatalf("Acquire with a free slot and done ctx = %v", err)
	}
	l.Release(0)
	l.Release(0)
}

func TestLimiter_acquireWaits(t *testing.T) {
	l := pool.NewLimiter(1)
	l.TryAcquire()
	got := make(chan error)
	go func() { got <- l.Acquire(context.Background()) }()
	select {
	case <-got:
		t.Fatal("Acquire did not wait")
	case <-time.After(20 * time.Millisecond):
	}
	l.Release(0)
	if err := <-got; err != nil {
		t.Fatal(err)
	}
	l.Release(0)
}

func TestLimiter_releaseWithoutAcquirePanics(t *testing.T) {
	l := pool.NewLimiter(1)
	defer func() {
		if recover() == nil {
			t.Fatal("no panic")
		}
	}()
	l.Release(0)
}

func TestLimiter_badSizePanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("no panic")
		}
	}()
	pool.NewLimiter(0)
}

// TestLimiter_concurrent checks the bound under contention (run with -race).
func TestLimiter_concurrent(t *testing.T) {
	l := pool.NewLimiter(3)
	hammer(t, l, 3, nil)
	if l.InUse() != 0 {
		t.Fatalf("InUse %d after all released", l.InUse())
	}
}

// hammer has 16 goroutines take and release slots of a, half of the time
// by Acquire and half by TryAcquire, and fails t if more than bound are
// ever held at once. Each release reports the number that were in flight
// as its latency, in milliseconds, so that an adaptive limit moves; after
// each, after runs if not nil.
func hammer(t *testing.T, a pool.Admission, bound int64, after func()) {
	t.Helper()
	var in, peak atomic.Int64
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Go(func() {
			for i := range 300 {
				if (g+i)%2 == 0 {
					if err := a.Acquire(context.Background()); err != nil {
						t.Error(err)
						return
					}
				} else if !a.TryAcquire() {
					continue
				}
				n := in.Add(1)
				for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
				}
				if n > bound {
					t.Errorf("%d in flight, bound %d", n, bound)
				}
				runtime.Gosched() // let others in while the slot is held
				in.Add(-1)
				a.Release(time.Duration(n) * time.Millisecond)
				if after != nil {
					after()
				}
			}
		})
	}
	wg.Wait()
	if peak.Load() == 0 {
		t.Fatal("nothing ran")
	}
}
