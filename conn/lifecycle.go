package conn

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// The life of a session, in four states:
//
//   - reading: the reader serves frames, ServeBody serves bodies, work is
//     admitted.
//   - stopping: stop has run (Shutdown, Close, or the peer ending its
//     stream). No work is admitted any more: a request met from now on is
//     answered -32000 "shutting down" (it never started, a retry is safe).
//     The reader returns at its next look, or is interrupted by a past read
//     deadline, or — on a stream it cannot interrupt — is left behind.
//   - draining: waiting for the handlers in flight to finish, then writing
//     out everything pending. Shutdown drains until its context is done;
//     the requests still running then are answered -32004 (abandoned:
//     they may have had effects) and their contexts cancelled.
//   - closed: terminate has run: the writer fails every later send, the
//     handlers' contexts are cancelled, the stream is closed. Done is
//     closed once the reader (unless left behind) and every handler have
//     returned, and pending outgoing calls have failed with ErrClosed.
//
// Invariants: the pooled tasks are counted in tasks, whose stopBit stop
// sets once (with stopping); admit counts a task only while stopBit is
// clear, in one compare-and-swap, so once stop has returned the count
// only falls, and idle is closed exactly once: by the step that leaves
// stopBit and no task. terminate runs once.
type lifecycle struct {
	stopping     atomic.Bool   // set by stop only
	readDetached atomic.Bool   // Shutdown could not interrupt the reader
	readDone     chan struct{} // the read loop has returned; made by start
	done         chan struct{} // everything has ended
	idle         chan struct{} // closed once stopping with no task left; made by stop
	idleOnce     sync.Once     // makes idle: a connection that never stops holds none
	closeOnce    sync.Once
	err          error // why it ended; written before done is closed

	stoppedMu sync.Mutex
	stopped   chan struct{} // closed once stopping; made by Stopping (nil: nobody asked)

	// tasks changes with every pooled request: it is kept apart from the
	// fields before it, and is the last of Conn (no padding after it: an
	// idle connection's size counts, and what follows is another object).
	_     [64]byte
	tasks atomic.Int64 // pooled tasks not yet finished, | stopBit once stopping
}

// stopBit marks lifecycle.tasks once the connection is stopping.
const stopBit = 1 << 62

func (l *lifecycle) init() {
	l.done = make(chan struct{})
}

// closedChan is a closed channel, for readDone and idle when they are
// closed from the start: a session without a stream has no reader, and
// one that stops with no task left is idle at once (a session per HTTP
// POST makes neither channel).
var closedChan = func() chan struct{} {
	ch := make(chan struct{})
	close(ch)
	return ch
}()

// shutdownGrace is how long, past Shutdown's deadline, the answers to
// abandoned requests get to be written before the stream is closed.
const shutdownGrace = 100 * time.Millisecond

// Done is closed when the connection has ended and every handler returned.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Wait blocks until the connection has ended and returns why: nil for a
// clean end of stream, Shutdown or Close.
func (c *Conn) Wait() error {
	<-c.done
	return c.err
}

// Close ends the connection at once: reading stops, handlers' contexts are
// cancelled, pending calls fail with ErrClosed and the stream is closed.
// Responses of handlers still running are dropped. It waits for the end.
func (c *Conn) Close() error {
	c.terminate(nil)
	<-c.done
	return nil
}

// Shutdown ends the connection gracefully: it stops reading, answers
// requests received but not started with -32000, and waits for running
// handlers until ctx is done; those still running then are answered
// -32004 (their late results are dropped) and their contexts cancelled.
// Then it writes out what is pending and closes the stream. It returns by
// ctx's deadline (plus a grace of 100ms for the last answers), whatever
// the peer does — even one that has stopped reading — with ctx.Err() if
// the deadline cut the drain short. Handlers that ignore their context may
// still run after it returns; Done says when they have all returned.
//
// Reading stops at once when the stream has read deadlines (net.Conn,
// pollable files, Pipe). On other streams the reader is left blocked; it
// serves nothing more, and Shutdown does not wait for it.
func (c *Conn) Shutdown(ctx context.Context) error {
	if !c.stop() {
		select {
		case <-c.done:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if c.s == nil && c.tasks.Load() == stopBit {
		// Served through ServeBody only, and nothing running: nothing to
		// read, wait for or write (a session per HTTP POST ends here).
		c.closeOnce.Do(func() {
			c.closeNow()
			c.finish(nil)
		})
		return nil
	}
	if c.interruptRead() {
		select {
		case <-c.readDone:
		case <-ctx.Done():
		}
	} else {
		// A blocking read (a terminal, an inherited pipe) cannot be
		// interrupted: leave the reader behind. Once stopping is set it
		// starts no work, and closing the stream may yet wake it.
		c.readDetached.Store(true)
	}
	select {
	case <-c.idle:
	case <-ctx.Done():
	}
	cut := ctx.Err()
	if cut != nil {
		c.out.stopWaiting() // producers stop waiting for room: nobody blocks on the peer now
		c.abandonAll()
	}
	// Write out what is pending: until ctx is done, then for the grace.
	flushed := make(chan struct{})
	go func() {
		_ = c.out.drain()
		close(flushed)
	}()
	select {
	case <-flushed:
	case <-ctx.Done():
		select {
		case <-flushed:
		case <-time.After(shutdownGrace):
		}
	}
	c.terminate(nil) // closing the stream wakes a write still blocked
	if cut == nil {
		cut = ctx.Err()
	}
	select {
	case <-c.done:
	case <-ctx.Done():
	}
	return cut
}

// drainAndClose ends the connection after the peer ended its stream: the
// requests it sent are still served and answered, then the stream closes.
func (c *Conn) drainAndClose(why error) {
	c.stop()
	go func() {
		<-c.idle
		_ = c.out.drain()
		c.terminate(why)
	}()
}

// interruptRead wakes a blocked read by setting a past deadline, and
// reports whether the stream supports that.
func (c *Conn) interruptRead() bool {
	d, ok := c.s.(readDeadliner)
	return ok && d.SetReadDeadline(time.Now()) == nil
}

// stop makes the connection start no more work and reports whether it was
// the first to. Once it returns, admit counts no task any more, so idle
// is closed once the tasks counted have finished, even if the reader is
// still running.
func (c *Conn) stop() bool {
	if c.stopping.Load() {
		return false // idle is made: see below
	}
	// idle exists before stopBit can be seen (taskDone closes it) and
	// before any stop returns (its callers wait on it). With no task
	// counted, stopBit is set here and the connection is idle already.
	first := false
	c.idleOnce.Do(func() {
		if c.tasks.CompareAndSwap(0, stopBit) {
			c.idle, first = closedChan, true
			return
		}
		c.idle = make(chan struct{})
	})
	if first {
		c.stopping.Store(true)
		c.closeStopped()
		return true
	}
	old := c.tasks.Or(stopBit)
	if old&stopBit != 0 {
		return false // another stop got there first
	}
	c.stopping.Store(true)
	c.closeStopped()
	if old == 0 {
		close(c.idle)
	}
	return true
}

// Stopping returns a channel closed once the connection stops starting
// work: Shutdown or Close has begun, or the peer has ended its stream. A
// handler that runs until it is told to end — a subscription that streams
// notifications — ends gracefully on it, answering its request, rather
// than holding Shutdown until its deadline.
func (c *Conn) Stopping() <-chan struct{} {
	c.stoppedMu.Lock()
	defer c.stoppedMu.Unlock()
	if c.stopped == nil {
		c.stopped = make(chan struct{})
		if c.stopping.Load() {
			close(c.stopped)
		}
	}
	return c.stopped
}

// closeStopped closes the channel Stopping returns, if one was made; stop
// calls it once stopping is set.
func (c *Conn) closeStopped() {
	c.stoppedMu.Lock()
	defer c.stoppedMu.Unlock()
	if c.stopped != nil {
		select {
		case <-c.stopped: // Stopping saw stopping set first, and closed it
		default:
			close(c.stopped)
		}
	}
}

// admit counts one more task for the pool unless the connection is
// stopping.
func (c *Conn) admit() bool {
	for {
		n := c.tasks.Load()
		if n&stopBit != 0 {
			return false
		}
		if c.tasks.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

// taskDone uncounts a task that admit counted.
func (c *Conn) taskDone() {
	if c.tasks.Add(-1) == stopBit {
		close(c.idle) // the last task of a stopping connection
	}
}

// terminate ends the connection once, recording why.
func (c *Conn) terminate(why error) {
	c.closeOnce.Do(func() {
		c.closeNow()
		go c.finish(why)
	})
}

// closeNow stops the connection's work and closes its stream (terminate,
// under closeOnce).
func (c *Conn) closeNow() {
	c.stop()
	c.out.fail(ErrClosed) // before cancel: no late response slips out
	c.cancel()
	if c.s != nil {
		_ = c.s.Close()
	}
}

// finish waits for the reader and the tasks, then reports the end.
func (c *Conn) finish(why error) {
	if !c.readDetached.Load() {
		<-c.readDone
	}
	<-c.idle
	if p := c.shared.Load(); p != nil {
		defaultPool.Release(p) // no task of ours is left: none takes it now
	}
	c.calls.failAll(ErrClosed)
	c.err = why
	close(c.done)
	if c.opts.OnClose != nil {
		c.opts.OnClose(c, why) // after done: it may call Close or Wait
	}
}
