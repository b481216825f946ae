package router

import (
	"bytes"
	"context"
	"fmt"

	"github.com/mcpwire/mcpwire/codec"
)

// Cache stores encoded results of a method (MethodOptions.Cache). The
// response cache (package cache; cache.Method) is one. Implementations
// must be safe for concurrent use.
type Cache interface {
	// Lookup returns the stored result for method and params (raw, as the
	// request carries them: a valid array or object, or empty when
	// absent): valid JSON never modified afterwards. It runs on the
	// connection's reader, so it must be quick and never wait for a fill.
	Lookup(method string, params []byte) (result []byte, ok bool)
	// Do returns the result for method and params: the stored one, or the
	// one fill returns, which it stores unless fill fails. Identical
	// concurrent calls run fill once and all get its outcome; a caller
	// whose ctx ends while it waits for another's fill returns ctx's
	// error.
	Do(ctx context.Context, method string, params []byte, fill func() ([]byte, error)) ([]byte, error)
}

// cached puts a Cache in front of a method's handler: as the entry's
// interceptor, it answers hits on the reader; as the handler (under the
// router's middleware), it runs the real handler through the cache's Do
// on a miss, encoding its result once. Notifications bypass the cache.
type cached struct {
	c    Cache
	next Handler
	bufs codec.BufferPool // where results are encoded before being kept
}

// Intercept answers a request from the cache's stored results.
func (h *cached) Intercept(req *Request) ([]byte, bool) {
	return h.c.Lookup(req.Method, req.Params)
}

// Handle runs the handler through the cache; its result goes out as a
// codec.Raw.
func (h *cached) Handle(ctx context.Context, req *Request) (any, error) {
	if req.IsNotification() {
		return h.next.Handle(ctx, req)
	}
	res, err := h.c.Do(ctx, req.Method, req.Params, func() ([]byte, error) {
		return h.fill(ctx, req)
	})
	if err != nil {
		return nil, err
	}
	return codec.Raw(res), nil
}

// fill runs the handler and returns its result encoded, in memory of its
// own and of the exact size (the handler's codec.Raw may be a view into
// the request's frame; a pooled buffer's spare capacity is not kept).
func (h *cached) fill(ctx context.Context, req *Request) ([]byte, error) {
	v, err := h.next.Handle(ctx, req)
	if err != nil {
		return nil, err
	}
	buf := h.bufs.Get()
	defer h.bufs.Put(buf)
	if buf.B, err = codec.AppendValue(buf.B[:0], v); err != nil {
		return nil, fmt.Errorf("router: cannot encode the result of %q: %w", req.Method, err)
	}
	return bytes.Clone(buf.B), nil
}

// interceptedResult is the handler at the bottom of Entry.Intercepted: it
// returns the interceptor's result the request carries.
type interceptedResult struct{}

// errNotIntercepted answers a request that reached interceptedResult
// without an interceptor's result: a middleware that made a new Request
// and dropped it.
var errNotIntercepted = codec.NewError(codec.CodeInternalError, "")

func (interceptedResult) Handle(_ context.Context, req *Request) (any, error) {
	if req.Intercepted == nil {
		return nil, errNotIntercepted
	}
	return codec.Raw(req.Intercepted), nil
}
