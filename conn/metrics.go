package conn

import (
	"context"
	"time"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/internal/clock"
	"github.com/mcpwire/mcpwire/router"
)

// Observation points: the connection tells Options.Metrics what it served
// from the places that already know — dispatch (refusals, interceptors,
// inline handlers), a pooled task's answer (task.go), and the answers given
// on a handler's behalf (timeout, Shutdown's abandonment, a silent
// cancellation). Each helper below is one nil test when Metrics is unset,
// and reads the clock only when it is set. A request is reported before
// its answer is handed on, so whoever has read the answer finds it counted.

// Metrics observes what a session serves: one report per request answered
// (Answered or Refused, never both), and the handlers in flight.
// Notifications are not reported, except in InFlight. A batch's elements
// are reported one by one (even when the batch's array is then replaced by
// -32003 for its size).
//
// The method names given are the router's registered names, or
// UnknownMethod or InvalidMessage: a bounded set, fit for a metric label,
// and strings that may be kept. Implementations must be safe for
// concurrent use; they are called on the reader and on workers, once or
// twice per request, so they must not block and should not allocate.
// Package metrics has a Prometheus one.
type Metrics interface {
	// Answered reports a request answered after its handler ran or an
	// interceptor (router.MethodOptions.Intercept) answered it: code is
	// the answer's JSON-RPC code, 0 for a result. d runs from the start of
	// an inline handler or interceptor, or from the hand-off of a pooled
	// one (so it includes the wait for a worker), to the answer; an inline
	// request the reader takes up right after answering another, without
	// waiting for input or output in between, starts where that answer
	// ended (so d also holds the reading of its request: a few hundred
	// nanoseconds, for one clock reading per request less). A pooled
	// request answered on its handler's behalf counts with that answer:
	// -32012 (HandlerTimeout), -32004 (abandoned by Shutdown); one
	// cancelled under CancelSilent counts as -32005 though nothing is sent.
	Answered(method string, code codec.Code, d time.Duration)
	// Refused reports a request answered with an error before any handler
	// ran: -32000 (overloaded, or shutting down), -32601 with method
	// UnknownMethod, and, with method InvalidMessage, whatever answered a
	// message that was no valid request at all (-32700, -32600, a refused
	// batch, a frame too large).
	Refused(method string, code codec.Code)
	// InFlight adds delta, 1 or -1, to the count of handlers handed off
	// and not yet returned: what Options.MaxInFlight bounds, notifications
	// included, whether queued for a worker or running. Inline handlers
	// and interceptors are not counted.
	InFlight(delta int)
}

// Method names Metrics is given for requests that name no registered
// method: they keep a metric's label values bounded whatever peers send.
const (
	// UnknownMethod stands for every method name the router does not have.
	UnknownMethod = "(unknown)"
	// InvalidMessage stands for a message that is no valid request: a parse
	// error, an invalid envelope, a refused batch, a frame too large.
	InvalidMessage = "(invalid)"
)

// MethodMetrics observes the requests of one registered method: what a
// MethodResolver returned for it. Answered and Refused are those of
// Metrics with the method's name given. Implementations must be safe for
// concurrent use, must not block and should not allocate.
type MethodMetrics interface {
	// Answered is Metrics.Answered for the method.
	Answered(code codec.Code, d time.Duration)
	// Refused is Metrics.Refused for the method.
	Refused(code codec.Code)
	// Tally returns a new MethodTally of the method, or nil to be told of
	// every answer through Answered.
	Tally() MethodTally
}

// MethodTally gathers the answers to one method's requests on one
// goroutine, to report them together. A session's reader asks for one
// with each MethodMetrics it keeps at hand, gives it the answers it makes
// itself (as Answered), and calls Flush before those answers can be sent
// and before it lets the tally go, so that whoever has read an answer
// finds it counted. Not safe for concurrent use; Flush must not block.
type MethodTally interface {
	// Answered gathers MethodMetrics.Answered(code, d).
	Answered(code codec.Code, d time.Duration)
	// Flush reports what was gathered since the last Flush.
	Flush()
}

// MethodResolver may be implemented by a Metrics to take the work done
// per method name (finding the method's instruments) out of each request:
// a session then asks Method for a registered method's MethodMetrics when
// it first reports the method, keeps a few of them, and reports those
// methods' requests to them instead of to Answered and Refused.
// UnknownMethod and InvalidMessage are still reported to Metrics. Method is
// called only with registered names, and must be safe for concurrent use.
type MethodResolver interface {
	Method(name string) MethodMetrics
}

// clock returns the monotonic time for latencies (package internal/clock:
// 8 bytes, cheaper to read than time.Since), or 0 without Metrics.
func (c *Conn) clock() time.Duration {
	if c.opts.Metrics == nil {
		return 0
	}
	return clock.Now()
}

// methodMetrics returns the MethodMetrics of e, or nil when Metrics
// resolves no methods. rd is the reader (its cache), or nil.
func (c *Conn) methodMetrics(e *router.Entry, rd *reader) MethodMetrics {
	o := c.obs
	switch {
	case o == nil || o.resolver == nil:
		return nil
	case rd != nil:
		return o.methods.mm[o.methods.slot(o.resolver, e)]
	}
	return o.resolver.Method(e.Method)
}

// answered reports a request of e, whose MethodMetrics are mm (nil: none),
// answered with code d after it started. Metrics is set.
func (c *Conn) answered(e *router.Entry, mm MethodMetrics, code codec.Code, d time.Duration) {
	if mm != nil {
		mm.Answered(code, d)
		return
	}
	c.opts.Metrics.Answered(e.Method, code, d)
}

// refused reports a request of e, whose MethodMetrics are mm (nil: none),
// refused with code. Metrics is set.
func (c *Conn) refused(e *router.Entry, mm MethodMetrics, code codec.Code) {
	if mm != nil {
		mm.Refused(code)
		return
	}
	c.opts.Metrics.Refused(e.Method, code)
}

// refuse answers a request with e before any handler ran, and reports it
// as a request of ent (nil: of an unregistered method, UnknownMethod).
func (c *Conn) refuse(to replyTo, rd *reader, isCall bool, ent *router.Entry, id []byte, e *codec.Error) {
	if m := c.opts.Metrics; m != nil && isCall {
		if ent == nil {
			m.Refused(UnknownMethod, e.Code)
		} else {
			c.refused(ent, c.methodMetrics(ent, rd), e.Code)
		}
	}
	c.answerError(to, rd, isCall, id, e)
}

// invalid reports e, the answer to a message that is no valid request,
// and returns it.
func (c *Conn) invalid(e *codec.Error) *codec.Error {
	if m := c.opts.Metrics; m != nil {
		m.Refused(InvalidMessage, e.Code)
	}
	return e
}

// inFlight reports a handler handed off (1) or returned (-1).
func (c *Conn) inFlight(delta int) {
	if m := c.opts.Metrics; m != nil {
		m.InFlight(delta)
	}
}

// interceptTimed asks e's interceptor to answer req, and reports a hit.
func (c *Conn) interceptTimed(e *router.Entry, req *router.Request, rd *reader) ([]byte, bool) {
	if c.opts.Metrics == nil {
		return e.Intercept.Intercept(req)
	}
	since := c.startInline(rd)
	result, ok := e.Intercept.Intercept(req)
	if ok {
		c.answeredInline(rd, e, 0, c.endInline(rd)-since)
	}
	return result, ok
}

// answeredInline reports a request of e answered inline: by the reader rd,
// or on another goroutine (rd nil).
func (c *Conn) answeredInline(rd *reader, e *router.Entry, code codec.Code, d time.Duration) {
	if rd != nil {
		c.answeredByReader(rd, e, code, d)
		return
	}
	c.answered(e, c.methodMetrics(e, nil), code, d)
}

// runInline is run for an inline handler of e: it reports a request's
// answer. rd is the reader, or nil on another goroutine.
func (c *Conn) runInline(ctx context.Context, e *router.Entry, h router.Handler, req *router.Request, out *codec.Buffer, rd *reader) {
	if c.opts.Metrics == nil {
		c.run(ctx, h, req, out)
		return
	}
	if req.ID == nil {
		c.run(ctx, h, req, out)
		rd.unmark() // a notification's time is nobody's
		return
	}
	since := c.startInline(rd)
	code := c.run(ctx, h, req, out)
	c.answeredInline(rd, e, code, c.endInline(rd)-since)
}

// track records what the report of t, a pooled request of e, needs: in
// its context, which outlives the task, what timers, Cancel and Shutdown
// report it with; in t, the method's MethodMetrics for its answer.
func (c *Conn) track(t *task, e *router.Entry, isCall bool, rd *reader) {
	if c.opts.Metrics != nil {
		t.ctx.entry, t.ctx.since = e, c.clock()
		if isCall {
			t.mm = c.methodMetrics(e, rd)
		}
	}
}

// answeredTask reports the answer code to t's request, from its worker.
func (c *Conn) answeredTask(t *task, code codec.Code) {
	if c.opts.Metrics != nil {
		c.answered(t.ctx.entry, t.mm, code, c.clock()-t.ctx.since)
	}
}

// answeredCtx reports the answer code given on its handler's behalf to
// the pooled request of context rc (a rare path: its method is looked up
// by name).
func (c *Conn) answeredCtx(rc *reqCtx, code codec.Code) {
	if c.opts.Metrics != nil {
		c.answered(rc.entry, c.methodMetrics(rc.entry, nil), code, c.clock()-rc.since)
	}
}

// refusedTask reports t's request refused with code before its handler
// started (the executor would not take it).
func (c *Conn) refusedTask(t *task, code codec.Code) {
	if c.opts.Metrics != nil {
		c.refused(t.ctx.entry, t.mm, code)
	}
}
