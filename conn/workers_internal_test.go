package conn

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/mcpwire/mcpwire/router"
)

type taskFunc func()

func (f taskFunc) Run() { f() }

// started reports how many goroutines w has started.
func (w *workers) startedSoFar() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.started
}

// Workers are reused, never fewer than tasks running at once, and all
// exit once the last user has released them.
func TestWorkers_reusedUnboundedAndReleased(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	var s sharedWorkers
	w := s.acquire()
	if w2 := s.acquire(); w2 != w {
		t.Fatal("a second user got other workers")
	}

	// Tasks that all wait for one another: each needs a worker of its own.
	const n = 200
	var started, done sync.WaitGroup
	started.Add(n)
	done.Add(n)
	release := make(chan struct{})
	for range n {
		w.Submit(taskFunc(func() {
			started.Done()
			<-release
			done.Done()
		}))
	}
	waitOrFail(t, &started, "tasks waiting on one another did not all start")
	close(release)
	waitOrFail(t, &done, "tasks did not finish")
	if got := w.startedSoFar(); got != n {
		t.Fatalf("%d goroutines for %d tasks at once", got, n)
	}

	// Idle now, the workers take the next tasks; one after another needs
	// no new goroutine.
	var ran atomic.Int32
	for range 100 {
		var one sync.WaitGroup
		one.Add(1)
		w.Submit(taskFunc(func() { ran.Add(1); one.Done() }))
		one.Wait()
	}
	if ran.Load() != 100 {
		t.Fatalf("%d tasks ran, want 100", ran.Load())
	}
	if got := w.startedSoFar(); got != n {
		t.Fatalf("%d goroutines started running tasks one at a time on %d idle workers", got-n, n)
	}

	s.release(w)
	if w.quit {
		t.Fatal("released while a user still holds them")
	}
	s.release(w)
	if !w.quit {
		t.Fatal("not released by the last user")
	}
	if w3 := s.acquire(); w3 == w {
		t.Fatal("released workers handed out again")
	} else {
		s.release(w3)
	}
	// goleak: every worker has exited.
}

// TestWorkers_idleExit: a worker idle for idleFor exits, and a task
// submitted as it decides is still run.
func TestWorkers_idleExit(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	w := &workers{idleFor: time.Millisecond}
	for i := range 300 { // a task now and then, some as the worker times out
		var one sync.WaitGroup
		one.Add(1)
		w.Submit(taskFunc(one.Done))
		waitOrFail(t, &one, "a task was lost")
		time.Sleep(time.Duration(i%3) * time.Millisecond / 2)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		w.mu.Lock()
		n := len(w.idle)
		w.mu.Unlock()
		if n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d workers still idle", n)
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

// TestConn_withoutPoolReusesWorkers: a connection without a Pool runs
// requests that are handed off, one after another, on the same few
// goroutines, and gives its workers back when it ends.
func TestConn_withoutPoolReusesWorkers(t *testing.T) {
	r := router.New()
	if err := r.Register("echo", router.Func(func(_ context.Context, p []string) ([]string, error) { return p, nil }), nil); err != nil {
		t.Fatal(err)
	}
	a, b := net.Pipe()
	c := New(a, &Options{Router: r})
	defer b.Close()
	if c.workers == nil {
		t.Fatal("no workers for a connection without a Pool")
	}
	br := bufio.NewReader(b)
	call := func(i int) {
		t.Helper()
		if _, err := fmt.Fprintf(b, `{"jsonrpc":"2.0","id":%d,"method":"echo","params":["x"]}`+"\n", i); err != nil {
			t.Fatal(err)
		}
		line, err := br.ReadString('\n')
		if want := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":["x"]}`+"\n", i); err != nil || line != want {
			t.Fatalf("answer %q, %v; want %q", line, err, want)
		}
	}
	call(0)
	before := c.workers.startedSoFar()
	for i := 1; i <= 100; i++ {
		call(i)
	}
	if n := c.workers.startedSoFar() - before; n > 2 {
		t.Errorf("%d goroutines started for 100 requests one after another", n)
	}
	w := c.workers
	c.Close()
	c.Wait()
	defaultWorkers.mu.Lock()
	users := defaultWorkers.users
	defaultWorkers.mu.Unlock()
	if users == 0 && !w.quit {
		t.Error("the last connection ended, its workers were not released")
	}
}

// TestWorkers_burstNeedsFewWorkers: a burst of cheap tasks is drained by
// a few workers, each recruited only while tasks wait and no other is on
// its way, not by a goroutine per task.
func TestWorkers_burstNeedsFewWorkers(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	var s sharedWorkers
	w := s.acquire()
	const n = 1000
	var done sync.WaitGroup
	done.Add(n)
	for range n {
		w.Submit(taskFunc(done.Done))
	}
	waitOrFail(t, &done, "a task of the burst did not run")
	if got := w.startedSoFar(); got > n/10 {
		t.Errorf("%d goroutines for a burst of %d cheap tasks", got, n)
	}
	t.Logf("%d goroutines for %d tasks", w.startedSoFar(), n)
	s.release(w)
}

// TestWorkers_queueStaysBounded: a queue that is never empty (tasks
// always waiting while one is taken) reuses the room of taken tasks
// instead of growing.
func TestWorkers_queueStaysBounded(t *testing.T) {
	w := &workers{idleFor: time.Hour, coming: 1} // a worker on its way: none is recruited
	for range 8 {
		w.Submit(taskFunc(func() {}))
	}
	for range 10000 { // take one, submit one: never empty
		w.take()
		w.Submit(taskFunc(func() {}))
	}
	if n, c := len(w.queue)-w.head, cap(w.queue); n != 8 || c > 32 {
		t.Errorf("%d tasks waiting in a queue of room %d, want 8 in a small one", n, c)
	}
}
