package conn

import (
	"context"
	"time"
)

// Shutdown ends the connection gracefully: it stops reading, answers
// requests received but not started with -32000, and waits for running
// handlers until ctx is done; those still running then are answered -32000
// (their late results are dropped) and their contexts cancelled. Then it
// flushes and closes the stream. It returns ctx.Err() if the deadline cut
// the drain short.
//
// Reading stops at once when the stream has SetReadDeadline (net.Conn,
// pollable files). On other streams the reader is left blocked; it serves
// nothing more, and Shutdown does not wait for it.
func (c *Conn) Shutdown(ctx context.Context) error {
	if !c.stop() {
		select {
		case <-c.done:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	var cut error
	if c.interruptRead() {
		select {
		case <-c.readDone:
		case <-ctx.Done():
			cut = ctx.Err()
		}
	} else {
		// A blocking read (a terminal, an inherited pipe) cannot be
		// interrupted: leave the reader behind. Once stopping is set it
		// starts no work, and closing the stream may yet wake it.
		c.readDetached.Store(true)
	}
	drained := make(chan struct{})
	go func() {
		c.workers.Wait()
		close(drained)
	}()
	select {
	case <-drained:
	case <-ctx.Done():
		cut = ctx.Err()
		c.inflight.claimAll(func(t *task) {
			c.respond(t.b, t.slot, c.errorResponse(t.req.ID, errShuttingDown), false)
		})
	}
	_ = c.out.flush()
	c.terminate(nil)
	select {
	case <-c.done:
	case <-ctx.Done():
		cut = ctx.Err()
	}
	return cut
}

// drainAndClose ends the connection after the peer ended its stream: the
// requests it sent are still served and answered, then the stream closes.
func (c *Conn) drainAndClose(why error) {
	c.stop()
	go func() {
		c.workers.Wait()
		_ = c.out.flush()
		c.terminate(why)
	}()
}

// interruptRead wakes a blocked read by setting a past deadline, and
// reports whether the stream supports that.
func (c *Conn) interruptRead() bool {
	d, ok := c.rwc.(interface{ SetReadDeadline(time.Time) error })
	return ok && d.SetReadDeadline(time.Now()) == nil
}
