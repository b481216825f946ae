package pool_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"go.uber.org/goleak"

	"github.com/mcpwire/mcpwire/pool"
)

// ants starts a default pool of its own when imported; those goroutines are
// part of the baseline.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.IgnoreCurrent())
}

// fn adapts a function to pool.Task.
type fn func()

func (f fn) Run() { f() }

func newPool(t *testing.T, opts *pool.Options) *pool.Pool {
	t.Helper()
	p, err := pool.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := p.Close(ctx); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return p
}

// fill occupies every worker of p until the returned release is called.
func fill(t *testing.T, p *pool.Pool, n int) (release func()) {
	t.Helper()
	gate := make(chan struct{})
	var started sync.WaitGroup
	started.Add(n)
	for range n {
		if err := p.Submit(fn(func() { started.Done(); <-gate })); err != nil {
			t.Fatal(err)
		}
	}
	started.Wait()
	return sync.OnceFunc(func() { close(gate) })
}

func TestPool_runs(t *testing.T) {
	p := newPool(t, nil)
	var wg sync.WaitGroup
	var n atomic.Int64
	for range 1000 {
		wg.Add(1)
		if err := p.Submit(fn(func() { n.Add(1); wg.Done() })); err != nil {
			t.Fatal(err)
		}
	}
	wg.Wait()
	if n.Load() != 1000 {
		t.Fatalf("%d tasks ran, want 1000", n.Load())
	}
	if p.Cap() <= 0 {
		t.Fatalf("Cap() = %d", p.Cap())
	}
}

// Tasks that block until all of them have started finish only if each
// gets a worker of its own: draining the queue must not serialise them.
func TestPool_blockingTasksRunSideBySide(t *testing.T) {
	const n = 64
	p := newPool(t, &pool.Options{Workers: n})
	var all sync.WaitGroup
	all.Add(n)
	gate := make(chan struct{})
	done := make(chan struct{}, n)
	for range n {
		if err := p.Submit(fn(func() { all.Done(); all.Wait(); <-gate; done <- struct{}{} })); err != nil {
			t.Fatal(err)
		}
	}
	started := make(chan struct{})
	go func() { all.Wait(); close(started) }()
	select {
	case <-started:
	case <-time.After(10 * time.Second):
		t.Fatal("tasks waiting for each other never all started")
	}
	if got := p.Busy(); got != n {
		t.Errorf("Busy = %d with %d tasks running, want %d", got, n, n)
	}
	close(gate)
	for range n {
		<-done
	}
}

// Saturated says whether a task queued now would wait for a busy worker.
func TestPool_saturatedWhileEveryWorkerIsBusy(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := newPool(t, &pool.Options{Workers: 2})
		if p.Saturated() {
			t.Fatal("Saturated with no task")
		}
		release := fill(t, p, 1)
		if p.Saturated() {
			t.Fatal("Saturated with one of two workers busy")
		}
		releaseOther := fill(t, p, 1)
		if !p.Saturated() {
			t.Fatal("not Saturated with both workers busy")
		}
		release()
		releaseOther()
		synctest.Wait()
		if p.Saturated() {
			t.Fatal("Saturated after every task returned")
		}
	})
}

func TestPool_blockingWaitsForRoomInTheQueue(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := newPool(t, &pool.Options{Workers: 2, Queue: 1})
		release := fill(t, p, 2)
		defer release()
		queued := make(chan struct{})
		if err := p.Submit(fn(func() { close(queued) })); err != nil {
			t.Fatalf("Submit with room in the queue = %v", err)
		}
		if p.QueueLen() != 1 {
			t.Fatalf("QueueLen = %d, want 1", p.QueueLen())
		}

		submitted := make(chan error, 1)
		ran := make(chan struct{})
		go func() { submitted <- p.Submit(fn(func() { close(ran) })) }()
		synctest.Wait() // Submit has returned or blocks for good
		select {
		case err := <-submitted:
			t.Fatalf("Submit returned %v on a full pool; it should block", err)
		default:
		}
		release()
		if err := <-submitted; err != nil {
			t.Fatal(err)
		}
		<-queued
		<-ran
	})
}

func TestPool_nonBlockingOverloaded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := newPool(t, &pool.Options{Workers: 1, Queue: 1, Overload: pool.Reject, RetryAfter: 120 * time.Millisecond})
		release := fill(t, p, 1)
		if err := p.Submit(fn(func() {})); err != nil {
			t.Fatalf("Submit with room in the queue = %v", err)
		}
		err := p.Submit(fn(func() {}))
		var oe *pool.OverloadedError
		if !errors.As(err, &oe) {
			t.Fatalf("Submit on a full pool = %v, want *OverloadedError", err)
		}
		if oe.RetryAfter != 120*time.Millisecond {
			t.Fatalf("RetryAfter = %v", oe.RetryAfter)
		}
		if got := oe.Error(); got != "pool: overloaded, retry after 120ms" {
			t.Fatalf("Error() = %q", got)
		}
		release()
		synctest.Wait() // the queue is drained
		// Once the queue has room again, Submit succeeds.
		done := make(chan struct{})
		if err := p.Submit(fn(func() { close(done) })); err != nil {
			t.Fatalf("Submit on a free pool = %v", err)
		}
		<-done
	})
}

func TestPool_defaultRetryAfter(t *testing.T) {
	p := newPool(t, &pool.Options{Workers: 1, Queue: 1, Overload: pool.Reject})
	release := fill(t, p, 1)
	defer release()
	if err := p.Submit(fn(func() {})); err != nil {
		t.Fatal(err)
	}
	var oe *pool.OverloadedError
	if err := p.Submit(fn(func() {})); !errors.As(err, &oe) || oe.RetryAfter != pool.DefaultRetryAfter {
		t.Fatalf("got %v", err)
	}
}

func TestPool_closeWaitsForRunningTasks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p, err := pool.New(&pool.Options{Workers: 4})
		if err != nil {
			t.Fatal(err)
		}
		var finished atomic.Bool
		gate := make(chan struct{})
		if err := p.Submit(fn(func() {
			<-gate
			finished.Store(true)
		})); err != nil {
			t.Fatal(err)
		}
		closed := make(chan error, 1)
		go func() { closed <- p.Close(context.Background()) }()
		synctest.Wait() // Close has returned or waits for good
		select {
		case err := <-closed:
			t.Fatalf("Close returned %v while a task was running", err)
		default:
		}
		close(gate)
		if err := <-closed; err != nil {
			t.Fatal(err)
		}
		if !finished.Load() {
			t.Fatal("Close returned before the running task finished")
		}
		if err := p.Submit(fn(func() {})); err != pool.ErrClosed {
			t.Fatalf("Submit after Close = %v, want ErrClosed", err)
		}
		if err := p.Close(context.Background()); err != nil {
			t.Fatalf("second Close = %v", err)
		}
	})
}

func TestPool_closeTimesOut(t *testing.T) {
	p, err := pool.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	gate := make(chan struct{})
	started := make(chan struct{})
	_ = p.Submit(fn(func() { close(started); <-gate }))
	<-started
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := p.Close(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Close = %v, want DeadlineExceeded", err)
	}
	if err := p.Submit(fn(func() {})); err != pool.ErrClosed {
		t.Fatalf("Submit while closing = %v, want ErrClosed", err)
	}
	close(gate)
	if err := p.Close(context.Background()); err != nil { // wait for the rest
		t.Fatal(err)
	}
}

func TestPool_closeWakesBlockedSubmit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p, err := pool.New(&pool.Options{Workers: 1, Queue: 1})
		if err != nil {
			t.Fatal(err)
		}
		release := fill(t, p, 1)
		queued := make(chan struct{})
		if err := p.Submit(fn(func() { close(queued) })); err != nil {
			t.Fatal(err)
		}
		blocked := make(chan error, 1)
		go func() { blocked <- p.Submit(fn(func() { t.Error("task ran after Close") })) }()
		synctest.Wait() // Submit blocks for a worker

		closed := make(chan error, 1)
		go func() { closed <- p.Close(context.Background()) }()
		if err := <-blocked; err != pool.ErrClosed {
			t.Fatalf("blocked Submit = %v, want ErrClosed", err)
		}
		release()
		if err := <-closed; err != nil {
			t.Fatal(err)
		}
		<-queued // accepted before Close: it ran
	})
}

func TestPool_panicHandler(t *testing.T) {
	got := make(chan any, 1)
	p := newPool(t, &pool.Options{Workers: 1, PanicHandler: func(v any) { got <- v }})
	if err := p.Submit(fn(func() { panic("boom") })); err != nil {
		t.Fatal(err)
	}
	if v := <-got; v != "boom" {
		t.Fatalf("PanicHandler got %v", v)
	}
	// The pool goes on working.
	done := make(chan struct{})
	if err := p.Submit(fn(func() { close(done) })); err != nil {
		t.Fatal(err)
	}
	<-done
}

func TestPool_panicWithoutHandler(t *testing.T) {
	p := newPool(t, &pool.Options{Workers: 1})
	if err := p.Submit(fn(func() { panic("quietly") })); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	if err := p.Submit(fn(func() { close(done) })); err != nil {
		t.Fatal(err)
	}
	<-done
}

func TestPool_concurrentSubmitAndClose(t *testing.T) {
	p, err := pool.New(&pool.Options{Workers: 4})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var ran, accepted atomic.Int64
	const busy = 1000 // tasks accepted before Close races the Submits
	racing := make(chan struct{})
	for range 8 {
		wg.Go(func() {
			for {
				err := p.Submit(fn(func() { ran.Add(1) }))
				if err == pool.ErrClosed {
					return
				}
				if err != nil {
					t.Error(err)
					return
				}
				if accepted.Add(1) == busy {
					close(racing)
				}
			}
		})
	}
	<-racing
	if err := p.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if ran.Load() != accepted.Load() {
		t.Fatalf("%d tasks accepted, %d ran", accepted.Load(), ran.Load())
	}
}
