package conn

import (
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/router"
)

// Leading: the reader runs a pooled request itself — one read alone in its
// frame, on a stream whose frames can be kept (codec.Keeper) — with all
// the bookkeeping of a task on the pool (limits, the in-flight list,
// cancellation, HandlerTimeout, Shutdown), but without handing it to
// another goroutine: no wake-up, no copy of the frame. Most handlers
// return quickly, and then that is all.
//
// A handler that does not return quickly must not hold up the requests
// behind it. A watchdog (a timer, armed while the reader runs such
// handlers) looks every leadTick; a handler it finds running on the reader
// at two looks in a row has held the reader for at least leadTick, and is
// deposed: the watchdog keeps its frame where it is (KeepFrames) and
// becomes the reader itself (leader/follower, with the follower started
// only when it is needed). The deposed handler finishes where it is and
// answers through the writer, like a pooled one. Its method is then marked
// slow on this connection: its requests go to the pool for a while
// (slowMin); the first one after that is led again (a probe), in case the
// slowness has passed — or the handler was not blocked at all, only kept
// from a CPU, which a busy machine does now and then. A probe that runs
// quickly ends the mark; one deposed again doubles the while, up to
// slowMax.
//
// States of lead.leading: 0 (the reader runs no led handler), seq (it runs
// the one it numbered seq), tookOver (the watchdog took the reading over
// while seq ran). Whoever moves it away from seq with a compare-and-swap
// decides: the reader (back to 0, and it goes on reading) or the watchdog
// (to tookOver, and it reads from now on).

const (
	// leadTick is how often the watchdog looks while the reader runs led
	// handlers: a handler is deposed after between one and two ticks.
	leadTick = 50 * time.Microsecond
	// slowMin and slowMax bound how long a method marked slow goes to the
	// pool before the reader tries to lead it again.
	slowMin  = 5 * time.Millisecond
	slowMax  = time.Second
	tookOver = ^uint64(0) // lead.leading once the watchdog deposed a handler
)

// lead is a connection's leading state.
type lead struct {
	leading atomic.Uint64              // see above
	armed   atomic.Bool                // the watchdog's timer is set
	seen    atomic.Uint64              // what the watchdog found last
	timer   atomic.Pointer[time.Timer] // the watchdog's, made on first use
	// left counts the deposed handlers still running. Added to before the
	// reader that follows starts, so once the last reader has returned
	// (readDone) it is only waited on.
	left sync.WaitGroup

	keep codec.Keeper // the stream's; nil: the reader never leads
	// The reader's own: handed from one reader to the next with the
	// reading, as are the Conn's reader fields.
	seq   uint64
	entry *router.Entry              // the method of the request led now
	probe bool                       // it is marked slow: leads said to probe it
	slow  map[*router.Entry]slowMark // methods handed off
}

// leads reports whether the reader runs the pooled request of e itself:
// unless e is marked slow, or to probe it once its mark has run out.
// Reader only.
func (l *lead) leads(e *router.Entry) bool {
	if l.keep == nil {
		return false
	}
	if len(l.slow) == 0 {
		return true
	}
	m, ok := l.slow[e]
	if !ok {
		return true
	}
	l.probe = time.Now().After(m.until)
	return l.probe
}

// slowMark is how long a method marked slow goes to the pool.
type slowMark struct {
	until time.Time
	span  time.Duration // since the mark was last set
}

// markSlow hands e's requests to the pool for a while: slowMin, or twice
// the last while if e was marked already (its probe was deposed). Reader
// only.
func (l *lead) markSlow(e *router.Entry) {
	if l.slow == nil {
		l.slow = make(map[*router.Entry]slowMark)
	}
	span := slowMin
	if m, ok := l.slow[e]; ok {
		span = min(2*m.span, slowMax)
	}
	l.slow[e] = slowMark{time.Now().Add(span), span}
}

// serveLed runs the pooled request m of e on the reader (see Leading
// above) and reports whether it was deposed meanwhile. The request's
// bytes stay in the frame: the stream keeps it should the handler be
// deposed.
func (c *Conn) serveLed(m *codec.Message, e *router.Entry) (deposed bool) {
	l := &c.lead
	var probed time.Time // when a probe started
	if l.probe {
		l.probe, probed = false, time.Now()
	}
	// Not counted in tasks: the reader is waited for, through readDone,
	// and a deposed handler through left.
	if !c.admitHandler(replyTo{}, true, e, m, c.running) {
		return false
	}
	t := c.newTask(e, m, true, nil)
	t.led = true
	if m.Kind == codec.KindRequest {
		c.inflight.add(t)
	}
	l.seq++
	seq := l.seq
	l.entry = e
	l.leading.Store(seq)
	if !l.armed.Load() && l.armed.CompareAndSwap(false, true) {
		c.armLead()
	}
	code, resp := t.runHandler()
	reader := l.leading.CompareAndSwap(seq, 0)
	if reader && !probed.IsZero() {
		// A probe not deposed: the watchdog's looks may have come late
		// (timers do on a busy machine), so the clock decides.
		if time.Since(probed) < leadTick {
			delete(l.slow, e) // quick: lead it again
		} else {
			l.markSlow(e)
		}
	}
	t.answer(code, resp, reader)
	if !reader {
		l.left.Done()
	}
	return !reader
}

// armLead sets the watchdog's timer. Only whoever set armed calls it. The
// reader makes the timer the first time, never to fire before it is
// stored: the watchdog finds it there when it arms it again.
func (c *Conn) armLead() {
	t := c.lead.timer.Load()
	if t == nil {
		t = time.AfterFunc(math.MaxInt64, c.watchLead)
		c.lead.timer.Store(t)
	}
	t.Reset(leadTick)
}

// watchLead is the watchdog: it deposes a handler it finds running on the
// reader at two looks in a row, and looks again in leadTick while the
// reader runs led handlers.
func (c *Conn) watchLead() {
	l := &c.lead
	l.armed.Store(false) // before looking: the reader arms again if it finds it unset
	seq := l.leading.Load()
	if seq == 0 || seq == tookOver {
		return
	}
	if l.seen.Swap(seq) != seq || !l.leading.CompareAndSwap(seq, tookOver) {
		if l.armed.CompareAndSwap(false, true) {
			c.armLead()
		}
		return
	}
	// The handler seq holds the reader: read on from here. Its frame stays
	// where it is; the reader's other state is ours from now on.
	e := l.entry
	l.left.Add(1) // before the next reader: see Shutdown and finish
	l.keep.KeepFrames()
	l.markSlow(e)
	l.leading.Store(0)
	c.readLoop()
}
