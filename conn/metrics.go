package conn

import (
	"context"
	"time"

	"github.com/mcpwire/mcpwire/codec"
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
	// one (so it includes the wait for a worker), to the answer. A pooled
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

// epoch is the origin of clock: a monotonic time that fits in 8 bytes.
var epoch = time.Now()

// clock returns the monotonic time for latencies, or 0 without Metrics.
func (c *Conn) clock() time.Duration {
	if c.opts.Metrics == nil {
		return 0
	}
	return time.Since(epoch)
}

// refuse answers a request with e before any handler ran, and reports it.
func (c *Conn) refuse(to replyTo, rd *reader, isCall bool, method string, id []byte, e *codec.Error) {
	if m := c.opts.Metrics; m != nil && isCall {
		m.Refused(method, e.Code)
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
func (c *Conn) interceptTimed(e *router.Entry, req *router.Request) ([]byte, bool) {
	m := c.opts.Metrics
	if m == nil {
		return e.Intercept.Intercept(req)
	}
	since := c.clock()
	result, ok := e.Intercept.Intercept(req)
	if ok {
		m.Answered(e.Method, 0, c.clock()-since)
	}
	return result, ok
}

// runInline is run for an inline handler: it reports a request's answer.
func (c *Conn) runInline(ctx context.Context, h router.Handler, req *router.Request, out *codec.Buffer) {
	m := c.opts.Metrics
	if m == nil || req.ID == nil {
		c.run(ctx, h, req, out)
		return
	}
	since := c.clock()
	code := c.run(ctx, h, req, out)
	m.Answered(req.Method, code, c.clock()-since)
}

// track records in rc, a pooled request's context, what its report needs:
// rc outlives the task, so timers, Cancel and Shutdown can report it too.
func (c *Conn) track(rc *reqCtx, e *router.Entry) {
	if c.opts.Metrics != nil {
		rc.entry, rc.since = e, c.clock()
	}
}

// answeredCtx reports the answer code to the pooled request of context rc.
func (c *Conn) answeredCtx(rc *reqCtx, code codec.Code) {
	if m := c.opts.Metrics; m != nil {
		m.Answered(rc.entry.Method, code, c.clock()-rc.since)
	}
}

// refusedCtx reports the pooled request of context rc refused with code
// before its handler started (the executor would not take it).
func (c *Conn) refusedCtx(rc *reqCtx, code codec.Code) {
	if m := c.opts.Metrics; m != nil {
		m.Refused(rc.entry.Method, code)
	}
}
