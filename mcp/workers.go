package mcp

import (
	"sync"
	"time"

	"github.com/mcpwire/mcpwire/conn"
)

// Handlers run on goroutines that live on after a request, waiting for
// the next: their stacks, grown by sonic (which asks for a deep stack
// before every decode) and by schema validation, stay grown. A goroutine
// per request, the connection's default, starts with a small stack and
// grows it, copying, on every request.
//
// There is no bound: a task that finds no idle worker starts a goroutine
// of its own at once, as without workers, so handlers that wait on the
// client for long (sampling, elicitation) never hold others back. The
// connection's MaxInFlight and Admission still bound work in flight.
// Workers idle for workerIdle exit; all exit once the last session of the
// server has ended.

// workerIdle is how long a worker waits for a task before it exits.
const workerIdle = 2 * time.Second

// workers is an unbounded conn.Executor whose goroutines are reused. Safe
// for concurrent use.
type workers struct {
	idle chan conn.Task // unbuffered: a send succeeds when a worker waits
	quit chan struct{}  // closed when the last user has gone
}

// Submit runs t on an idle worker, or on a new one.
func (w *workers) Submit(t conn.Task) error {
	select {
	case w.idle <- t:
	default:
		go w.work(t)
	}
	return nil
}

// work runs t, then the tasks it is handed, until it has been idle for
// workerIdle or the workers are released.
func (w *workers) work(t conn.Task) {
	t.Run()
	idle := time.NewTimer(workerIdle)
	defer idle.Stop()
	for {
		select {
		case t = <-w.idle:
			t.Run()
			idle.Reset(workerIdle)
		case <-idle.C:
			return
		case <-w.quit:
			return
		}
	}
}

// sharedWorkers hands the sessions of a server one set of workers, made
// when the first session starts and released when the last one ends.
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
		s.w = &workers{idle: make(chan conn.Task), quit: make(chan struct{})}
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
		close(w.quit)
		s.w = nil
	}
}
