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
// pollable files); on other streams the reader stops at its next frame.
func (c *Conn) Shutdown(ctx context.Context) error {
	if !c.stopping.CompareAndSwap(false, true) {
		select {
		case <-c.done:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if d, ok := c.rwc.(interface{ SetReadDeadline(time.Time) error }); ok {
		_ = d.SetReadDeadline(time.Now())
	}
	var cut error
	select {
	case <-c.readDone:
	case <-ctx.Done():
		cut = ctx.Err()
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
	c.stopping.Store(true)
	go func() {
		c.workers.Wait()
		_ = c.out.flush()
		c.terminate(why)
	}()
}
