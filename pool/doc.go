// Package pool is the project's one executor: it runs handlers on reused
// goroutines, and bounds the work a connection may have in flight.
//
// # Pool
//
// A Pool is an executor on ants/v2 (github.com/panjf2000/ants/v2) with at
// most Options.Workers goroutines and a bounded queue (Options.Queue) in
// front of them — or, with Workers set to Unbounded, no bound on either:
// then a task never waits for another to finish, and the callers' own
// admission (a Limiter, a connection's MaxInFlight) bounds the work. A
// Shared hands one Pool to many users and closes it after the last: the
// executor of every connection that has no pool of its own. Its pool is
// the one not on ants: its workers are goroutines started by the Submits
// that need them, so it starts no goroutine of its own and is cheap to
// make and close, once per request for a session alone in the process.
// Submit queues a Task (an interface value, normally a
// pointer the caller recycles); no closure is made per task, and in steady
// state Submit does not allocate. Each worker drains the queue, so a burst
// of tasks costs one worker wake-up rather than one per task, and more
// workers are started while tasks wait, so tasks that block still run side
// by side. When the queue is full, Submit either blocks until there is
// room (the default: a connection's reader then stops reading and the peer
// feels backpressure) or, with Options.Overload set to Reject, fails at
// once with an *OverloadedError carrying a retry hint, for the connection
// to answer -32000 with data.retryAfterMs. QueueLen reports the queue's
// depth, for metrics.
//
// Idle workers exit after Options.IdleTimeout. Close stops accepting tasks
// (Submit returns ErrClosed afterwards, and a Submit blocked on a full queue
// is woken with ErrClosed), then waits until the tasks already accepted,
// running or queued, have returned and the pool's goroutines have been
// told to exit (they do at once), or until its ctx is done. It waits on an
// event (the last task returning), never by polling.
//
// A Task that panics does not take the process down: the worker recovers,
// reports the value to Options.PanicHandler (if set) and goes on with the
// queue. The connection recovers in its own tasks too,
// so that it can answer the request with -32603; the pool's recovery is the
// last line of defence. ants' own logger is never used.
//
// ants starts a default pool of its own (two goroutines) when it is imported.
// This package never uses it; tests that check for leaked goroutines must
// take it as part of the baseline (goleak.IgnoreCurrent in TestMain).
//
// # Limiter
//
// Admission is what a connection asks before a handler starts: TryAcquire
// or Acquire a slot, Release it with the time the handler ran. A Limiter is
// the plain Admission, a counting semaphore; one per connection bounds its
// requests in flight, one shared bounds a server, and an adaptive limit
// (fed the latencies) can take its place.
//
// # Adaptive limit
//
// An AdaptiveLimiter is the Admission whose limit follows measured latency,
// so that a server admits about as much work as it can do without queueing
// it: a gradient controller in the spirit of Netflix's concurrency-limits.
// Every AdaptiveOptions.Window latencies fed to Release (those of work that
// ran with at least half the limit in use; the others say nothing about
// the limit), it compares their mean with a baseline: at the baseline the
// limit grows by a small allowance for queueing (AdaptiveOptions.QueueSize
// or Headroom), beyond it the limit is cut in proportion, so that under a
// sustained overload it holds about the server's capacity plus that
// allowance (11% by default), always within [MinLimit, MaxLimit]. A slow
// start multiplies a limit the load reaches by 1.5 a round trip until
// latency first rises. The baseline is measured by probes that briefly cut
// the limit to a quarter, so that it is the latency of a lightly loaded
// server and does not drift up under a sustained overload. The limiter
// adapts only on the samples it is given (no timer, no goroutine),
// waiters are served first come, first served, and a lowered limit
// revokes no slot. Limit and InUse are snapshots for metrics.
//
// This package imports nothing of the project.
package pool
