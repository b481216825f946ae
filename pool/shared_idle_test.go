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
// belong to it. One task after another runs on one worker; idle workers
// wait up to IdleTimeout for more, then exit, all but one, kept while the
// pool is open; the last Release ends it at once. A user alone, acquiring
// and releasing per task, leaves nothing running between tasks.
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
		}
		// Three at once: three workers, two of which exit after IdleTimeout.
		var started, done sync.WaitGroup
		started.Add(3)
		done.Add(3)
		release := make(chan struct{})
		for range 3 {
			if err := p.Submit(fn(func() { started.Done(); <-release; done.Done() })); err != nil {
				t.Fatal(err)
			}
		}
		started.Wait()
		close(release)
		done.Wait()
		synctest.Wait()
		if got, busy := p.Running(), p.Busy(); got != 3 || busy != 0 {
			t.Fatalf("Running = %d, Busy = %d after three tasks at once; want 3 idle", got, busy)
		}
		time.Sleep(idle / 2)
		synctest.Wait()
		if got := p.Running(); got != 3 {
			t.Fatalf("Running = %d before IdleTimeout, want 3", got)
		}
		time.Sleep(idle)
		synctest.Wait()
		if got := p.Running(); got != 1 {
			t.Fatalf("Running = %d after IdleTimeout, want the one kept", got)
		}
		// The last Release: the kept worker exits at once.
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
