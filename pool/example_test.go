package pool_test

import (
	"context"
	"fmt"
	"sync"

	"github.com/mcpwire/mcpwire/pool"
)

// square is a Task. Submitting a pointer costs no allocation.
type square struct {
	n, result int
	wg        *sync.WaitGroup
}

func (s *square) Run() {
	s.result = s.n * s.n
	s.wg.Done()
}

func Example() {
	p, err := pool.New(&pool.Options{Workers: 4})
	if err != nil {
		panic(err)
	}
	defer p.Close(context.Background())

	// At most 2 in flight: a per-connection limit.
	l := pool.NewLimiter(2)

	var wg sync.WaitGroup
	tasks := make([]square, 5)
	for i := range tasks {
		if err := l.Acquire(context.Background()); err != nil {
			panic(err)
		}
		tasks[i] = square{n: i, wg: &wg}
		wg.Add(1)
		if err := p.Submit(&tasks[i]); err != nil {
			panic(err)
		}
		l.Release(0) // a real caller releases when the task is done
	}
	wg.Wait()
	for _, t := range tasks {
		fmt.Print(t.result, " ")
	}
	fmt.Println()
	// Output: 0 1 4 9 16
}
