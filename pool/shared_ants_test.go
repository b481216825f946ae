package pool_test

import (
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpwire/mcpwire/pool"
)

// Shared's pool runs on ants: tasks one after another reuse one worker;
// idle workers exit after IdleTimeout; users that come and go while a
// holder keeps the pool open find it open and its worker waiting; the last
// Release ends every goroutine of the pool (ants' clock and reaper too:
// synctest.Test returns only once they have exited).
func TestShared_onAntsReusesWorkersAndEndsWithTheLastRelease(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const idle = time.Second
		s := pool.NewShared(&pool.Options{Workers: pool.Unbounded, IdleTimeout: idle})
		holder := s.Acquire()
		oneTask := func(p *pool.Pool) {
			t.Helper()
			var one sync.WaitGroup
			one.Add(1)
			if err := p.Submit(fn(one.Done)); err != nil {
				t.Fatal(err)
			}
			one.Wait()
			synctest.Wait() // the worker is back in ants, idle
		}
		for range 10 {
			oneTask(holder)
			if got := holder.Running(); got != 1 {
				t.Fatalf("Running = %d between tasks one after another, want the one idle worker", got)
			}
		}

		// Three at once: three workers, which exit once idle for IdleTimeout.
		var started, done sync.WaitGroup
		started.Add(3)
		done.Add(3)
		release := make(chan struct{})
		for range 3 {
			if err := holder.Submit(fn(func() { started.Done(); <-release; done.Done() })); err != nil {
				t.Fatal(err)
			}
		}
		started.Wait()
		close(release)
		done.Wait()
		synctest.Wait()
		if got, busy := holder.Running(), holder.Busy(); got != 3 || busy != 0 {
			t.Fatalf("Running = %d, Busy = %d after three tasks at once; want 3 idle", got, busy)
		}
		time.Sleep(idle / 2)
		synctest.Wait()
		if got := holder.Running(); got != 3 {
			t.Fatalf("Running = %d before IdleTimeout, want 3", got)
		}
		time.Sleep(3 * idle)
		synctest.Wait()
		if got := holder.Running(); got != 0 {
			t.Fatalf("Running = %d long after IdleTimeout, want 0", got)
		}

		// Users one after another, the holder keeping the pool open: one
		// pool, one worker, reused.
		oneTask(holder)
		for range 10 {
			p := s.Acquire()
			if p != holder {
				t.Fatal("a user got another pool while the holder keeps one open")
			}
			oneTask(p)
			s.Release(p)
			if got := holder.Running(); got != 1 {
				t.Fatalf("Running = %d after a user came and went, want the one idle worker", got)
			}
		}

		// The last Release closes the pool; its goroutines exit at once.
		start := time.Now()
		s.Release(holder)
		synctest.Wait()
		if got := holder.Running(); got != 0 || time.Since(start) != 0 {
			t.Fatalf("Running = %d, %v after the last Release; want 0 at once", got, time.Since(start))
		}
		if err := holder.Submit(fn(func() {})); err != pool.ErrClosed {
			t.Fatalf("Submit after the last Release = %v, want ErrClosed", err)
		}
		// A user alone makes a new pool, which its Release closes.
		p := s.Acquire()
		if p == holder {
			t.Fatal("a closed pool handed out again")
		}
		oneTask(p)
		s.Release(p)
		synctest.Wait()
		if got := p.Running(); got != 0 {
			t.Fatalf("Running = %d after a lone user released the pool", got)
		}
	})
}
