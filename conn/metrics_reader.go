package conn

import (
	"time"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/router"
)

// The metrics fast path, on the reader: a registered method's
// MethodMetrics come from the reader's small cache (a pointer comparison,
// no lookup by name); the reader's answers go to the method's tally, with
// plain additions, flushed before they can be sent (flushHeld, and
// serveBatch before it lets a batch go); and an inline request that
// follows another without the reader waiting in between starts at the
// clock reading that ended the other (observer.mark): one clock reading
// per request. The reader forgets the mark wherever it may block (a read,
// a write, a hand-off) or serves an inline notification untimed.

// observer is what a connection keeps for Options.Metrics, when set: the
// resolver, if Metrics is one, for any goroutine; the method cache and the
// mark for the reader only. (A connection without metrics carries only
// the pointer to it: its size counts for idle connections.)
type observer struct {
	resolver MethodResolver
	methods  methodCache   // used only with a resolver
	mark     time.Duration // where the reader's next inline request starts, or 0
}

// methodSlots is how many MethodMetrics a reader keeps at hand.
const methodSlots = 4

// methodCache is a reader's MethodMetrics, and their tallies, by router
// entry: an entry is immutable, so its pointer names its registration.
// Replaced round robin.
type methodCache struct {
	entry   [methodSlots]*router.Entry
	mm      [methodSlots]MethodMetrics
	tally   [methodSlots]MethodTally // nil: mm has none
	next    int
	pending bool // some tally has answers to flush
}

// slot returns the index of e's MethodMetrics, asking r when e is not at
// hand (the tally of the one replaced is flushed first).
func (mc *methodCache) slot(r MethodResolver, e *router.Entry) int {
	for i, k := range &mc.entry {
		if k == e {
			return i
		}
	}
	i := mc.next
	if t := mc.tally[i]; t != nil {
		t.Flush()
	}
	mm := r.Method(e.Method)
	mc.entry[i], mc.mm[i], mc.tally[i] = e, mm, mm.Tally()
	mc.next = (i + 1) % methodSlots
	return i
}

// flushTallies reports what the reader's tallies gathered.
func (rd *reader) flushTallies() {
	if o := rd.c.obs; o != nil {
		o.methods.flush()
	}
}

// flush reports what the tallies gathered.
func (mc *methodCache) flush() {
	if !mc.pending {
		return
	}
	mc.pending = false
	for _, t := range &mc.tally {
		if t != nil {
			t.Flush()
		}
	}
}

// answeredByReader reports a request of e answered with code d after it
// started, by the reader rd: to a tally if there is one. The reader's
// answers go to its held output, which flushHeld hands on after flushing
// the tallies, or to a batch it dispatches, which no one can send before
// serveBatch has flushed them too.
func (c *Conn) answeredByReader(rd *reader, e *router.Entry, code codec.Code, d time.Duration) {
	o := c.obs
	if o.resolver == nil {
		c.opts.Metrics.Answered(e.Method, code, d)
		return
	}
	mc := &o.methods
	i := mc.slot(o.resolver, e)
	if t := mc.tally[i]; t != nil {
		t.Answered(code, d)
		mc.pending = true
		return
	}
	mc.mm[i].Answered(code, d)
}

// startInline returns when an inline request on the reader rd (nil: on
// another goroutine) starts: the end of the reader's previous answer, if
// it has not waited since, or now.
func (c *Conn) startInline(rd *reader) time.Duration {
	if rd != nil && c.obs.mark != 0 {
		return c.obs.mark
	}
	return c.clock()
}

// endInline returns the time an inline request ends, which is where the
// reader's next one may start.
func (c *Conn) endInline(rd *reader) time.Duration {
	now := c.clock()
	if rd != nil {
		c.obs.mark = now
	}
	return now
}

// unmark drops the reader's mark: it is about to wait, or spent time that
// no request accounts for.
func (rd *reader) unmark() {
	if rd != nil && rd.c.obs != nil {
		rd.c.obs.mark = 0
	}
}
