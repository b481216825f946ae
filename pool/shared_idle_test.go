package pool_test

import (
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpwire/mcpwire/pool"
)

// Shared's pool starts no goroutine of its own: its workers are started
// by the Submits that need them, so inside a testing/synctest bubble they
// belong to it. One task after another runs on one worker, which waits
// idle for the next up to IdleTimeout, then exits; the last Release ends
// the idle workers at once. A user alone, acquiring and releasing per
// task, leaves nothing running between tasks.
func TestShared_workersBelongToTheSubmitterAndExitWhenIdle(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const idle = time.Second
		s := pool.NewShared(&pool.Options{Workers: pool.Unbounded, IdleTimeout: idle})
		p := s.Acquire()
		for range 10 {
			var one sync.WaitGroup
			one.Add(1)
			if err := p.Submit(fn(one.Done)); err != nil {
				t.Fatal(err)
			}
			one.Wait()
			synctest.Wait() // the worker is idle
			if got := p.Running(); got != 1 {
				t.Fatalf("Running = %d between tasks one after another, want the one idle worker", got)
			}
			time.Sleep(idle / 2) // less than IdleTimeout: the worker waits on
		}
		if got := p.Busy(); got != 0 {
			t.Fatalf("Busy = %d with no task, want 0", got)
		}
		time.Sleep(idle)
		synctest.Wait()
		if got := p.Running(); got != 0 {
			t.Fatalf("Running = %d after IdleTimeout, want 0", got)
		}
		// A worker again, then the last Release: it exits without waiting
		// for IdleTimeout.
		var one sync.WaitGroup
		one.Add(1)
		if err := p.Submit(fn(one.Done)); err != nil {
			t.Fatal(err)
		}
		one.Wait()
		start := time.Now()
		s.Release(p)
		synctest.Wait()
		if got := p.Running(); got != 0 || time.Since(start) != 0 {
			t.Fatalf("Running = %d, %v after the last Release; want 0 at once", got, time.Since(start))
		}
		// Alone, a user per task: nothing runs once each has released.
		for range 10 {
			p := s.Acquire()
			var one sync.WaitGroup
			one.Add(1)
			if err := p.Submit(fn(one.Done)); err != nil {
				t.Fatal(err)
			}
			one.Wait()
			s.Release(p)
			synctest.Wait()
			if got := p.Running(); got != 0 {
				t.Fatalf("Running = %d after a lone user released the pool", got)
			}
		}
	})
}
