package client

import (
	"context"
	"errors"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/conn"
)

// Request is one element of a batch: a call, or a notification when
// Notify is set.
type Request struct {
	// Method is the method to call.
	Method string
	// Params are as Call's: nil, or a value that encodes to a JSON array
	// or object.
	Params any
	// Notify makes the element a notification: sent, never answered.
	Notify bool
}

// Response is the outcome of one element of a batch.
type Response struct {
	// Result is the call's result, the caller's to keep; nil with Err and
	// for a notification.
	Result codec.Raw
	// Err is the server's error answer (a *codec.Error), or why the call
	// got none: ctx's end (a *conn.CanceledCallError), a *TransportError.
	Err error
}

// Decode decodes the result into v, or returns Err.
func (r *Response) Decode(v any) error {
	if r.Err != nil {
		return r.Err
	}
	return codec.Unmarshal(r.Result, v)
}

// Batch sends reqs as one JSON-RPC batch, one array in one message on one
// session, and returns one Response per request, in the order of reqs,
// each matched to its answer by id whatever order the server answers in.
// A notification's Response is empty.
//
// Batch returns an error, and no responses, when the batch was not sent:
// reqs is empty (conn.ErrEmptyBatch), params do not encode, no session
// could carry it (a *TransportError, not sent), or ctx ended first. Once
// sent, every request has its Response, its own error among them. A
// batch is sent at most once, unless every method in it is idempotent
// (Options.Idempotent, or the Idempotent option for all of it): then a
// batch not sent is tried again, as a call is. It never goes to the cache.
// A server that refuses a batch whole answers one error with a null id,
// which no request can be matched to (Stats.UnknownID counts it): the
// requests then wait for ctx's deadline, or Options.Timeout.
func (c *Client) Batch(ctx context.Context, reqs []Request, opts ...CallOption) ([]Response, error) {
	var co callOptions
	for _, o := range opts {
		o(&co)
	}
	idempotent := co.idempotent
	if !idempotent {
		idempotent = len(reqs) > 0
		for _, r := range reqs {
			idempotent = idempotent && (r.Notify || c.opts.idempotent[r.Method])
		}
	}
	ctx, cancel := c.withTimeout(ctx)
	defer cancel()
	calls := make([]conn.BatchCall, len(reqs))
	for i, r := range reqs {
		calls[i] = conn.BatchCall{Method: r.Method, Params: r.Params, Notify: r.Notify}
	}
	return retry(c, ctx, idempotent, func(ctx context.Context) ([]Response, error) {
		return c.attemptBatch(ctx, calls)
	})
}

// attemptBatch sends the batch once, on the session pick chooses.
func (c *Client) attemptBatch(ctx context.Context, calls []conn.BatchCall) ([]Response, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	sl := c.pick()
	n := int64(len(calls))
	sl.pending.Add(n)
	defer sl.pending.Add(-n)
	s, err := sl.session(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.c.CallBatch(ctx, calls); err != nil {
		if errors.Is(err, conn.ErrClosed) { // the session ended before the batch was queued
			return nil, &TransportError{Sent: false, Err: err}
		}
		return nil, err
	}
	out := make([]Response, len(calls))
	for i, bc := range calls {
		if bc.Err != nil {
			out[i].Err = c.callError(s, bc.Err)
		} else {
			out[i].Result = bc.Result
		}
	}
	return out, nil
}
