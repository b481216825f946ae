package conn

import (
	"sync"
	"time"
)

// Without Options.Pool, handlers run on goroutines that live on after a
// request, waiting for the next: their stacks, grown by sonic (which asks
// for a deep stack before every decode) and by whatever the handler does,
// stay grown. A goroutine per request starts with a small stack and grows
// it, copying it each time it doubles, on every request: on a batch of
// 100 cheap calls that was more than half the time.
//
// There is no bound: a task that finds no idle worker starts a goroutine
// of its own at once, as a goroutine per request would, so handlers that
// wait for long (on the peer: sampling, elicitation) never hold others
// back. The connection's MaxInFlight and Admission still bound work in
// flight. Idle workers wait on a channel of their own, on a stack: the
// last one to finish is the first to get work (its stack and caches are
// warm), and none contends with the others for a shared channel or keeps
// a timer. A sweep every idleFor, while any worker is idle, tells those
// idle since the sweep before to exit (so a worker idles between one and
// two idleFor); all exit once the last connection without a Pool has
// ended (defaultWorkers).

// workerIdle is how long a worker waits for a task before it exits, at
// least.
const workerIdle = 2 * time.Second

// workers is an unbounded Executor whose goroutines are reused. Safe for
// concurrent use.
type workers struct {
	idleFor time.Duration // workerIdle, but in tests

	mu      sync.Mutex
	idle    []*worker   // waiting for a task, the oldest at the bottom
	sweeps  uint64      // sweeps so far
	sweeper *time.Timer // armed while a worker is idle; nil: never armed
	armed   bool
	quit    bool // the last user has gone: finish and exit
	started int  // goroutines started (tests)
}

// worker is one goroutine of workers, as it waits.
type worker struct {
	task  chan Task // buffered: a send never waits; nil tells the worker to exit
	since uint64    // workers.sweeps when it went idle
}

// Submit runs t on an idle worker, or on a new one.
func (w *workers) Submit(t Task) error {
	w.mu.Lock()
	if n := len(w.idle); n > 0 {
		k := w.idle[n-1]
		w.idle[n-1] = nil
		w.idle = w.idle[:n-1]
		w.mu.Unlock()
		k.task <- t
		return nil
	}
	w.started++
	w.mu.Unlock()
	go w.work(&worker{task: make(chan Task, 1)}, t)
	return nil
}

// work runs t, then the tasks it is handed, until a sweep or the
// workers' release tells it to exit.
func (w *workers) work(k *worker, t Task) {
	for t != nil {
		t.Run()
		w.mu.Lock()
		if w.quit {
			w.mu.Unlock()
			return
		}
		k.since = w.sweeps
		w.idle = append(w.idle, k)
		if !w.armed {
			w.arm()
		}
		w.mu.Unlock()
		t = <-k.task
	}
}

// arm starts the sweeper (w.mu held).
func (w *workers) arm() {
	w.armed = true
	if w.sweeper == nil {
		w.sweeper = time.AfterFunc(w.idleFor, w.sweep)
	} else {
		w.sweeper.Reset(w.idleFor)
	}
}

// sweep tells the workers idle since before the last sweep to exit, and
// comes again while any is idle.
func (w *workers) sweep() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.armed = false
	if w.quit {
		return
	}
	n := 0
	for n < len(w.idle) && w.idle[n].since < w.sweeps {
		w.idle[n].task <- nil
		n++
	}
	w.idle = append(w.idle[:0], w.idle[n:]...)
	clear(w.idle[len(w.idle) : len(w.idle)+n])
	w.sweeps++
	if len(w.idle) > 0 {
		w.arm()
	}
}

// stop tells the idle workers to exit, and the busy ones to exit once done.
func (w *workers) stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.quit = true
	if w.sweeper != nil {
		w.sweeper.Stop()
	}
	for _, k := range w.idle {
		k.task <- nil
	}
	w.idle = nil
}

// defaultWorkers run the handlers of every connection without a Pool.
var defaultWorkers sharedWorkers

// sharedWorkers hands its users (connections) one set of workers, made
// when the first starts and released when the last one ends.
type sharedWorkers struct {
	mu    sync.Mutex
	w     *workers
	users int
}

// acquire returns the workers, making them if there are none.
func (s *sharedWorkers) acquire() *workers {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.w == nil {
		s.w = &workers{idleFor: workerIdle}
	}
	s.users++
	return s.w
}

// release gives back workers acquire returned; the last user's release
// tells them to exit once their tasks are done.
func (s *sharedWorkers) release(w *workers) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.users--; s.users == 0 && s.w == w {
		w.stop()
		s.w = nil
	}
}
