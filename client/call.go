package client

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/mcpwire/mcpwire/codec"
)

// CallOption changes one call.
type CallOption func(*callOptions)

type callOptions struct {
	idempotent bool
}

// Idempotent marks a call as safe to repeat: it is retried on the outcomes
// Retry names, as the methods of Options.Idempotent are.
func Idempotent() CallOption {
	return func(o *callOptions) { o.idempotent = true }
}

// Call calls method with params and decodes its result into result (nil:
// discard it). params is nil for none, or a value that encodes to a JSON
// array or object (a codec.Raw or json.RawMessage is sent verbatim); it is
// encoded once, whatever the attempts.
//
// ctx bounds the call, its attempts and the waits between them
// (Options.Timeout applies when it has no deadline); when it ends first,
// the error wraps ctx's error (a *conn.CanceledCallError once the request
// went out). A server's error answer is a *codec.Error. A transport
// failure is a *TransportError; the client dials a new session for later
// calls. A call marked idempotent (Options.Idempotent, or the Idempotent
// option) is retried on the outcomes Retry names; any other is sent at
// most once. A method named in Options.Cache may be answered from the
// cache.
func (c *Client) Call(ctx context.Context, method string, params, result any, opts ...CallOption) error {
	raw, err := c.call(ctx, method, params, opts)
	if err != nil || result == nil {
		return err
	}
	return codec.Unmarshal(raw, result)
}

// CallRaw is Call returning the raw result, the caller's to keep.
func (c *Client) CallRaw(ctx context.Context, method string, params any, opts ...CallOption) (codec.Raw, error) {
	raw, err := c.call(ctx, method, params, opts)
	if err != nil {
		return nil, err
	}
	return append(codec.Raw(nil), raw...), nil
}

// call is Call returning the raw result: read-only, it may be the cache's.
func (c *Client) call(ctx context.Context, method string, params any, opts []CallOption) (codec.Raw, error) {
	co := callOptions{idempotent: c.opts.idempotent[method]}
	for _, o := range opts {
		o(&co)
	}
	ctx, cancel := c.withTimeout(ctx)
	defer cancel()
	ps, release, err := encodeParams(params)
	if err != nil {
		return nil, err
	}
	defer release()
	call := func() (codec.Raw, error) {
		return retry(c, ctx, co.idempotent, func(ctx context.Context) (codec.Raw, error) {
			return c.attempt(ctx, method, ps)
		})
	}
	if c.cache.caches(method) {
		return c.cache.do(ctx, &c.st, method, ps, call)
	}
	return call()
}

// attempt sends one call on the session pick chooses.
func (c *Client) attempt(ctx context.Context, method string, params codec.Raw) (codec.Raw, error) {
	if err := ctx.Err(); err != nil {
		return nil, err // a session would send it anyway
	}
	sl := c.pick()
	sl.pending.Add(1)
	defer sl.pending.Add(-1)
	s, err := sl.session(ctx)
	if err != nil {
		return nil, err
	}
	var p any // no params: a nil interface, not a nil codec.Raw
	if params != nil {
		p = params
	}
	raw, err := s.c.CallRaw(ctx, method, p)
	if err != nil {
		return nil, c.callError(s, err)
	}
	return raw, nil
}

// callError is s.callError, or ErrClosed once the client is closed.
func (c *Client) callError(s *session, err error) error {
	err = s.callError(err)
	if _, ok := err.(*TransportError); ok && c.closed.Load() {
		return ErrClosed
	}
	return err
}

// Notify sends a notification on the session pick chooses. It is sent
// once, never retried; an error is a *TransportError (not sent, or
// perhaps sent), ErrClosed, ctx's, or the params' encoding error.
func (c *Client) Notify(ctx context.Context, method string, params any) error {
	ctx, cancel := c.withTimeout(ctx)
	defer cancel()
	ps, release, err := encodeParams(params)
	if err != nil {
		return err
	}
	defer release()
	if err := ctx.Err(); err != nil {
		return err
	}
	sl := c.pick()
	s, err := sl.session(ctx)
	if err != nil {
		return err
	}
	var p any
	if ps != nil {
		p = ps
	}
	if err := s.c.Notify(ctx, method, p); err != nil {
		return c.callError(s, err)
	}
	return nil
}

// withTimeout applies Options.Timeout to a ctx with no deadline.
func (c *Client) withTimeout(ctx context.Context) (context.Context, context.CancelFunc) {
	if c.opts.timeout > 0 {
		if _, ok := ctx.Deadline(); !ok {
			return context.WithTimeout(ctx, c.opts.timeout)
		}
	}
	return ctx, func() {}
}

// retry runs try until it succeeds, fails for good, or has run as many
// times as an idempotent call may (once for any other), waiting between
// runs as Options.Retry says.
func retry[T any](c *Client, ctx context.Context, idempotent bool, try func(context.Context) (T, error)) (T, error) {
	maxAttempts := 1
	if idempotent {
		maxAttempts = c.opts.retry.MaxAttempts
	}
	for n := 1; ; n++ {
		v, err := try(ctx)
		if err == nil || n >= maxAttempts {
			return v, err
		}
		floor, ok := retryable(err)
		if !ok || !sleep(ctx, max(c.opts.retry.wait(n), time.Duration(floor)*time.Millisecond)) {
			return v, err
		}
		c.st.retries.Add(1)
	}
}

// sleep waits for d unless ctx ends first, and reports whether it waited.
// A wait that would outlast ctx's deadline is not begun.
func sleep(ctx context.Context, d time.Duration) bool {
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) < d {
		return false
	}
	if ctx.Err() != nil {
		return false
	}
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// paramBufs recycles the buffers params are encoded into.
var paramBufs = sync.Pool{New: func() any { return new([]byte) }}

// maxPooledParams is the largest buffer paramBufs keeps.
const maxPooledParams = 64 << 10

// encodeParams encodes params once for every attempt: nil for none, raw
// JSON as it is, anything else with codec.AppendValue into a pooled
// buffer, which release gives back.
func encodeParams(params any) (codec.Raw, func(), error) {
	switch p := params.(type) {
	case nil:
		return nil, func() {}, nil
	case codec.Raw:
		return p, func() {}, nil
	case json.RawMessage:
		return codec.Raw(p), func() {}, nil
	}
	bp := paramBufs.Get().(*[]byte)
	b, err := codec.AppendValue((*bp)[:0], params)
	if err != nil {
		paramBufs.Put(bp)
		return nil, nil, err
	}
	*bp = b
	return b, func() {
		if cap(*bp) <= maxPooledParams {
			paramBufs.Put(bp)
		}
	}, nil
}
