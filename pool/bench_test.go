package pool_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/pool"
)

type benchTask struct {
	wg *sync.WaitGroup
	n  int
}

func (t *benchTask) Run() {
	t.n++ // trivial work
	t.wg.Done()
}

func BenchmarkSubmit(b *testing.B) {
	p, err := pool.New(nil)
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close(context.Background())
	const batch = 64
	var wg sync.WaitGroup
	tasks := make([]benchTask, batch)
	for i := range tasks {
		tasks[i].wg = &wg
	}
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		// A batch in flight, then wait, so that each task is touched by one
		// worker at a time and can be reused.
		if n%batch == 0 {
			wg.Wait()
		}
		wg.Add(1)
		if err := p.Submit(&tasks[n%batch]); err != nil {
			b.Fatal(err)
		}
		n++
	}
	wg.Wait()
	total := 0
	for i := range tasks {
		total += tasks[i].n
	}
	if total != n {
		b.Fatalf("%d tasks ran, %d submitted", total, n)
	}
}

func BenchmarkLimiter(b *testing.B) {
	b.Run("uncontended", func(b *testing.B) {
		l := pool.NewLimiter(1)
		ctx := context.Background()
		b.ReportAllocs()
		for b.Loop() {
			if err := l.Acquire(ctx); err != nil {
				b.Fatal(err)
			}
			l.Release(0)
		}
	})
	b.Run("parallel", func(b *testing.B) {
		benchParallel(b, pool.NewLimiter(4))
	})
}

// benchParallel measures Acquire and Release of a from every P at once.
func benchParallel(b *testing.B, a interface {
	pool.Admission
	InUse() int
}) {
	ctx := context.Background()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := a.Acquire(ctx); err != nil {
				b.Fatal(err)
			}
			a.Release(time.Millisecond)
		}
	})
	if a.InUse() != 0 {
		b.Fatalf("InUse %d after the run", a.InUse())
	}
}
