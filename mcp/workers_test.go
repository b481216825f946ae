package mcp

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"
)

type taskFunc func()

func (f taskFunc) Run() { f() }

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

	s.release(w)
	select {
	case <-w.quit:
		t.Fatal("released while a user still holds them")
	default:
	}
	s.release(w)
	<-w.quit // closed: the workers exit (goleak checks)
	if w3 := s.acquire(); w3 == w {
		t.Fatal("released workers handed out again")
	} else {
		s.release(w3)
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
