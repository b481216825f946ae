//go:build !race

package pool_test

import (
	"context"
	"sync"
	"testing"

	"github.com/mcpwire/mcpwire/pool"
)

// TestSubmit_allocs: once its workers are started, Submit of a pointer Task
// allocates nothing.
func TestSubmit_allocs(t *testing.T) {
	p, err := pool.New(&pool.Options{Workers: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(context.Background())
	var wg sync.WaitGroup
	task := &benchTask{wg: &wg}
	submit := func() {
		wg.Add(1)
		if err := p.Submit(task); err != nil {
			t.Fatal(err)
		}
		wg.Wait()
	}
	for range 100 { // start the workers
		submit()
	}
	if n := testing.AllocsPerRun(1000, submit); n != 0 {
		t.Fatalf("Submit allocates %v times, want 0", n)
	}
}

func TestLimiter_allocs(t *testing.T) {
	l := pool.NewLimiter(1)
	ctx := context.Background()
	if n := testing.AllocsPerRun(1000, func() {
		_ = l.Acquire(ctx)
		l.Release(0)
		l.TryAcquire()
		l.Release(0)
	}); n != 0 {
		t.Fatalf("Limiter allocates %v times, want 0", n)
	}
}
