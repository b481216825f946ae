// Package pool is the project's one executor: it runs tasks (a
// connection's handlers) on reused goroutines, and admits or refuses work
// before it starts. It imports nothing of the project.
//
// # Guarantees
//
// Pool, Shared, Limiter and AdaptiveLimiter are safe for concurrent use.
//
//   - Submit runs an accepted Task exactly once, on a worker goroutine,
//     never on the caller's. A Pool holds at most Options.Workers workers
//     and Options.Queue waiting tasks; with Workers set to Unbounded it
//     bounds neither and a task never waits for another to finish, so the
//     callers' admission (a Limiter, a connection's MaxInFlight) must
//     bound the work.
//   - When the queue is full, Submit waits for room (Block, the default:
//     a connection then stops reading and its peer feels backpressure) or,
//     under Reject, fails at once with an *OverloadedError. That error
//     means the task never started, so a retry is safe; a connection
//     answers it with -32000 and data.retryAfterMs.
//   - After Close, Submit fails with ErrClosed, and a Submit waiting for
//     room is woken with it. Close returns once every accepted task has
//     returned, or when its context is done.
//   - A Task that panics does not end the process: the worker recovers,
//     passes the value to Options.PanicHandler and goes on.
//   - In steady state Submit allocates nothing; a Task is an interface
//     value, normally a pointer the caller recycles.
//   - A Shared hands one Pool to many users and closes it after the last
//     Release: the executor of every connection without a pool of its own.
//   - Admission is asked before a handler starts: TryAcquire or Acquire a
//     slot, Release it with the time the work ran. Limiter is a counting
//     semaphore (one per connection, or one shared by a server);
//     AdaptiveLimiter's limit follows the latencies it is fed, within
//     [MinLimit, MaxLimit], serves waiters first come, first served, and
//     revokes no slot when it lowers the limit. Limit, InUse and QueueLen
//     are snapshots, for metrics.
//
// # Design
//
// A Pool (made by New, or by a Shared) is a queue in front of ants/v2
// workers (github.com/panjf2000/ants/v2).
// Each worker runs a drain loop that takes tasks until the queue is empty,
// so a burst costs one wake-up rather than one per task; a loop that takes
// a task while more wait starts another, so tasks that block still run
// side by side. A loop that finds the queue empty gives its worker back at
// once: the worker waits in ants for the next drain loop, and ants' reaper
// ends those idle for Options.IdleTimeout. So work one task after another
// reuses one worker, its stack already grown, and starts no goroutine.
// Close waits on an event (the last task returning), never by polling.
// ants' own logger is never used. ants starts a default pool of its own
// (two goroutines) when it is imported; this package never uses it, and
// tests that check for leaked goroutines take it as part of the baseline
// (goleak.IgnoreCurrent).
//
// A Shared keeps its pool open while it has users. Making one costs an
// ants pool (two goroutines of its own, a clock and the reaper), so a
// server that serves each request as a session of its own holds one
// Acquire for as long as it serves: a session alone in the process then
// finds the pool open.
//
// The AdaptiveLimiter is a gradient controller in the spirit of Netflix's
// concurrency-limits: every AdaptiveOptions.Window latencies (of work that
// ran with at least half the limit in use) it compares their mean with a
// baseline latency. At the baseline the limit grows by an allowance for
// queueing (QueueSize or Headroom); beyond it the limit is cut in
// proportion, so that under a sustained overload it holds about the
// server's capacity plus that allowance. A slow start grows a limit the
// load reaches quickly until latency first rises, and the baseline is
// re-measured by probes that briefly cut the limit: unlike a long-term
// average of all samples (as in Gradient2) it does not drift up under a
// sustained overload, and unlike a running minimum it is not biased low
// by noise and follows a service that became slower for good. It has no timer and no goroutine: it adapts
// only on the samples Release is given. The full rule is on
// AdaptiveLimiter.
//
// The connection recovers panics in its own tasks, to answer -32603; the
// pool's recovery is the last line of defence.
package pool
