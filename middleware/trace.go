package middleware

import (
	"context"
	"strings"

	"github.com/mcpwire/mcpwire/router"
	"github.com/mcpwire/mcpwire/transport"
)

// TraceContext returns middleware that propagates W3C trace context
// (https://www.w3.org/TR/trace-context/) into each call's handler. It reads
// traceparent and tracestate from the request's HTTP header over HTTP and
// WebSocket (transport.HeaderFromContext) and, when there is no
// traceparent header, from params._meta (MCP's convention, and the only
// place on stream transports). A traceparent that is absent, repeated or
// not valid (wrong syntax, version ff, a trace or parent id of zeros) is
// ignored: the call goes on untraced. A tracestate that is not valid is
// dropped ("") while its traceparent is kept, as the specification asks.
//
// The values are put in the handler's context (TraceparentFromContext) and
// handed to extract, if not nil, whose context the handler then gets (nil:
// the context as it was). extract is where OpenTelemetry plugs in, in the
// user's code, without this package importing it:
//
//	prop := propagation.TraceContext{}
//	extract := func(ctx context.Context, traceparent, tracestate string) context.Context {
//		carrier := propagation.MapCarrier{"traceparent": traceparent, "tracestate": tracestate}
//		return prop.Extract(ctx, carrier)
//	}
//
// A call with no trace context costs a header or params lookup and nothing
// more.
func TraceContext(extract func(ctx context.Context, traceparent, tracestate string) context.Context) router.Middleware {
	return func(next router.Handler) router.Handler {
		return &traceContext{extract: extract, next: next}
	}
}

type traceContext struct {
	extract func(ctx context.Context, traceparent, tracestate string) context.Context
	next    router.Handler
}

func (t *traceContext) Handle(ctx context.Context, req *router.Request) (any, error) {
	parent, state, ok := traceOf(ctx, req)
	if !ok {
		return t.next.Handle(ctx, req)
	}
	ctx = &traceCtx{Context: ctx, parent: parent, state: state}
	if t.extract != nil {
		if c := t.extract(ctx, parent, state); c != nil {
			ctx = c
		}
	}
	return t.next.Handle(ctx, req)
}

type traceKey struct{}

// traceCtx is context.WithValue(ctx, traceKey{}, …) with the values inline:
// one allocation instead of two.
type traceCtx struct {
	context.Context
	parent, state string
}

// Value answers traceKey with the trace, and any other key as its parent.
func (c *traceCtx) Value(key any) any {
	if key == (traceKey{}) {
		return c
	}
	return c.Context.Value(key)
}

// TraceparentFromContext returns the traceparent and tracestate
// TraceContext found for the call whose handler ctx belongs to, both
// validated (tracestate may be ""), or two empty strings when the call
// came without a valid traceparent.
func TraceparentFromContext(ctx context.Context) (traceparent, tracestate string) {
	if v, ok := ctx.Value(traceKey{}).(*traceCtx); ok {
		return v.parent, v.state
	}
	return "", ""
}

// traceOf returns the request's trace context, ok == false when it has no
// valid traceparent.
func traceOf(ctx context.Context, req *router.Request) (parent, state string, ok bool) {
	if h := transport.HeaderFromContext(ctx); h != nil {
		if ps := h["Traceparent"]; len(ps) > 0 {
			if len(ps) > 1 || !validTraceparent(ps[0]) {
				return "", "", false
			}
			state = strings.Join(h["Tracestate"], ",") // several lines are one list
			if !validTracestate(state) {
				state = ""
			}
			return ps[0], state, true
		}
	}
	meta := metaObject(req.Params)
	if meta == nil {
		return "", "", false
	}
	parent, _ = memberString(meta, "traceparent")
	if !validTraceparent(parent) {
		return "", "", false
	}
	state, _ = memberString(meta, "tracestate")
	if !validTracestate(state) {
		state = ""
	}
	return parent, state, true
}
