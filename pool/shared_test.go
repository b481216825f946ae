package pool_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/mcpwire/mcpwire/pool"
)

// An unbounded pool runs every task at once, however many wait on one
// another; its idle workers take the next tasks (none started for tasks
// one after another); Shared hands every user that one pool and closes it
// once the last has released it.
func TestShared_oneUnboundedPoolReusedAndReleased(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	s := pool.NewShared(&pool.Options{Workers: pool.Unbounded})
	p := s.Acquire()
	if p2 := s.Acquire(); p2 != p {
		t.Fatal("a second user got another pool")
	}
	if p.Cap() != pool.Unbounded || p.QueueCap() != pool.Unbounded {
		t.Fatalf("Cap %d, QueueCap %d: want Unbounded", p.Cap(), p.QueueCap())
	}

	// Tasks that all wait for one another: each needs a worker of its own.
	const n = 200
	var started, done sync.WaitGroup
	started.Add(n)
	done.Add(n)
	release := make(chan struct{})
	for range n {
		if err := p.Submit(fn(func() {
			started.Done()
			<-release
			done.Done()
		})); err != nil {
			t.Fatal(err)
		}
	}
	waitOrFail(t, &started, "tasks waiting on one another did not all start")
	if p.Saturated() {
		t.Error("an unbounded pool says it is saturated")
	}
	close(release)
	waitOrFail(t, &done, "tasks did not finish")

	// Idle now (for DefaultIdleTimeout), the workers take the next tasks:
	// one after another needs no new goroutine.
	for range 100 {
		var one sync.WaitGroup
		one.Add(1)
		if err := p.Submit(fn(one.Done)); err != nil {
			t.Fatal(err)
		}
		waitOrFail(t, &one, "a task was lost")
	}
	if got := p.Running(); got > n {
		t.Fatalf("%d workers alive after %d at once and 100 one at a time", got, n)
	}

	s.Release(p)
	if err := p.Submit(fn(func() {})); err != nil {
		t.Fatalf("released while a user still holds it: Submit = %v", err)
	}
	s.Release(p)
	if err := p.Submit(fn(func() {})); err != pool.ErrClosed {
		t.Fatalf("Submit after the last Release = %v, want ErrClosed", err)
	}
	p3 := s.Acquire()
	if p3 == p {
		t.Fatal("a released pool handed out again")
	}
	s.Release(p3)
	closeWait(t, p, p3) // and goleak: every worker has exited
}

// A burst of cheap tasks is drained by a few workers, each started only
// while tasks wait and no other is on its way, not by a goroutine per task.
func TestPool_unboundedBurstNeedsFewWorkers(t *testing.T) {
	p := newPool(t, &pool.Options{Workers: pool.Unbounded})
	const n = 1000
	var done sync.WaitGroup
	done.Add(n)
	for range n {
		if err := p.Submit(fn(done.Done)); err != nil {
			t.Fatal(err)
		}
	}
	waitOrFail(t, &done, "a task of the burst did not run")
	if got := p.Running(); got > n/10 {
		t.Errorf("%d workers for a burst of %d cheap tasks", got, n)
	}
}

// Idle workers exit after IdleTimeout, and a task submitted as one
// decides to is still run.
func TestPool_idleWorkersExit(t *testing.T) {
	p := newPool(t, &pool.Options{Workers: pool.Unbounded, IdleTimeout: time.Millisecond})
	for i := range 300 { // a task now and then, some as a worker times out
		var one sync.WaitGroup
		one.Add(1)
		if err := p.Submit(fn(one.Done)); err != nil {
			t.Fatal(err)
		}
		waitOrFail(t, &one, "a task was lost")
		time.Sleep(time.Duration(i%3) * time.Millisecond / 2)
	}
	deadline := time.Now().Add(10 * time.Second)
	for p.Running() > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d workers still alive", p.Running())
		}
		time.Sleep(time.Millisecond)
	}
}

func waitOrFail(t *testing.T, wg *sync.WaitGroup, msg string) {
	t.Helper()
	ch := make(chan struct{})
	go func() { wg.Wait(); close(ch) }()
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
		t.Fatal(msg)
	}
}

// closeWait waits for pools already closed to be done.
func closeWait(t *testing.T, ps ...*pool.Pool) {
	t.Helper()
	for _, p := range ps {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err := p.Close(ctx)
		cancel()
		if err != nil {
			t.Errorf("Close: %v", err)
		}
	}
}
