package conn

import (
	"slices"
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
// Tasks wait in a queue for a worker. Whenever the queue holds tasks and
// no worker is on its way to it (woken or started, not yet there), one
// is recruited: an idle one, or a new goroutine; and each recruit that
// takes a task while more wait recruits the next. So a burst of cheap
// tasks is drained by a few workers with few wake-ups, while tasks that
// block (on the peer: sampling, elicitation) never hold the others back:
// each waiting task is reached by a new recruit, one hand-off after the
// other, as a goroutine per request would. There is no bound; the
// connection's MaxInFlight and Admission bound work in flight.
//
// Idle workers wait on a channel of their own, on a stack: the last one
// to finish is the first recruited (its stack and caches are warm). A
// sweep every idleFor, while any worker is idle, tells those idle since
// the sweep before to exit (so a worker idles between one and two
// idleFor); all exit once the last connection without a Pool has ended
// (defaultWorkers).

// workerIdle is how long a worker waits for a task before it exits, at
// least.
const workerIdle = 2 * time.Second

// workers is an unbounded Executor whose goroutines are reused. Safe for
// concurrent use.
type workers struct {
	idleFor time.Duration // workerIdle, but in tests

	mu      sync.Mutex
	queue   []Task // submitted: queue[head:] not yet taken
	head    int
	coming  int         // workers recruited that have not yet looked at the queue
	idle    []*worker   // waiting to be recruited, the last to finish on top
	sweeps  uint64      // sweeps so far
	sweeper *time.Timer // armed while a worker is idle; nil: never armed
	armed   bool
	quit    bool // the last user has gone: finish and exit
	started int  // goroutines started (tests)
}

// worker is one goroutine of workers, as it waits.
type worker struct {
	wake  chan bool // buffered: true, recruited; false, exit
	since uint64    // workers.sweeps when it went idle
}

// Submit queues t and makes sure a worker will take it.
func (w *workers) Submit(t Task) error {
	w.mu.Lock()
	if w.head > 0 && len(w.queue) == cap(w.queue) {
		// Full, with taken tasks in front: move the rest there rather
		// than grow (a queue never empty would grow for ever).
		n := copy(w.queue, w.queue[w.head:])
		clear(w.queue[n:])
		w.queue, w.head = w.queue[:n], 0
	}
	w.queue = append(w.queue, t)
	if w.coming == 0 {
		w.recruit()
	}
	w.mu.Unlock()
	return nil
}

// recruit wakes an idle worker, or starts one, to take from the queue
// (w.mu held).
func (w *workers) recruit() {
	w.coming++
	if n := len(w.idle); n > 0 {
		k := w.idle[n-1]
		w.idle[n-1] = nil
		w.idle = w.idle[:n-1]
		k.wake <- true
		return
	}
	w.started++
	go w.work(&worker{wake: make(chan bool, 1)})
}

// take returns the queue's first task, or nil (w.mu held).
func (w *workers) take() Task {
	if w.head == len(w.queue) {
		return nil
	}
	t := w.queue[w.head]
	w.queue[w.head] = nil
	if w.head++; w.head == len(w.queue) {
		w.queue, w.head = w.queue[:0], 0
	}
	return t
}

// work takes tasks from the queue and runs them, waiting idle whenever it
// is empty, until a sweep or the workers' release tells it to exit. It
// was recruited.
func (w *workers) work(k *worker) {
	for {
		w.mu.Lock()
		w.coming--
		t := w.take()
		for t != nil {
			if w.head < len(w.queue) && w.coming == 0 {
				w.recruit() // more wait, and nobody is on the way
			}
			w.mu.Unlock()
			t.Run()
			w.mu.Lock()
			t = w.take()
		}
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
		if !<-k.wake {
			return
		}
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
		w.idle[n].wake <- false
		n++
	}
	w.idle = slices.Delete(w.idle, 0, n)
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
		k.wake <- false
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
