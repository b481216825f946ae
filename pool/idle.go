package pool

import "time"

// idler is a drain loop's timed wait for more work in a pool without ants
// (see Shared): instead of exiting when the queue is empty, the loop's
// goroutine waits up to IdleTimeout for a Submit to hand it the queue, so
// that work one task after another reuses one goroutine, its stack
// already grown. Its timer is made once per goroutine and reset for each
// wait. A loop that goes idle while no other is waits with no timer (see
// idleLocked), so the pool keeps one idle worker while it is open.
type idler struct {
	t       *time.Timer
	expired bool // under p.mu: the timer fired since the last reset
}

// wait is idleLocked with a timer of IdleTimeout.
func (w *idler) wait(p *Pool) bool {
	if w.t == nil {
		w.t = time.AfterFunc(p.idleTimeout, func() {
			p.mu.Lock()
			w.expired = true
			p.wakeIdle.Broadcast()
			p.mu.Unlock()
		})
	} else {
		w.expired = false
		w.t.Reset(p.idleTimeout)
	}
	return p.idleLocked(&w.expired)
}

// stop stops the timer, if any, when the loop exits.
func (w *idler) stop() {
	if w.t != nil {
		w.t.Stop()
	}
}

// idleLocked is called with p.mu held, the loop counted out of drainers.
// It returns true when a Submit (or another loop) handed it the queue: it
// is then counted in drainers again and is the loop starting; false when
// the pool was closed, or *expired (nil: never) was set, first, with no
// hand-off for it.
func (p *Pool) idleLocked(expired *bool) bool {
	p.idle++
	for {
		p.wakeIdle.Wait()
		if p.handoffs > 0 {
			p.handoffs--
			return true
		}
		if p.closed || (expired != nil && *expired) {
			p.idle--
			return false
		}
	}
}
