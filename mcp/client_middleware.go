package mcp

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/router"
)

// Use wraps every handler of what servers send the client — requests
// (sampling/createMessage, elicitation/create, roots/list, ping, and the
// input requests of a stateless version's input_required results) and
// notifications — in middleware, the first given outermost, as
// Server.Use does on the server's side. The handler's context carries
// the session (the Session field of the request types).
func (c *Client) Use(mw ...router.Middleware) { c.router.Use(mw...) }

// UseSending wraps every request the client's sessions send to servers
// (initialize, server/discover, tools/call, …) in middleware, the first
// given outermost, from the next request on. A middleware sees the
// request's method and its params as JSON (Params; nil for none; under
// a stateless version, before the session's _meta is added), and an
// empty ID (the id is given when the request is sent); it may change
// them, answer without sending (a cache, say), or pass the request on.
// The innermost handler sends it and returns its result as a codec.Raw;
// a middleware may return another value, which is encoded and decoded
// into the caller's result in its place. An error is returned to the
// caller as it is.
func (c *Client) UseSending(mw ...router.Middleware) {
	c.sendMu.Lock()
	defer c.sendMu.Unlock()
	for _, m := range mw {
		if m != nil {
			c.sendMW = append(c.sendMW[:len(c.sendMW):len(c.sendMW)], m)
		}
	}
	if len(c.sendMW) == 0 {
		return
	}
	var h router.Handler = router.HandlerFunc(sendRequest)
	for i := len(c.sendMW) - 1; i >= 0; i-- {
		if h = c.sendMW[i](h); h == nil {
			panic("mcp: sending middleware returned a nil Handler")
		}
	}
	c.sending.Store(&h)
}

// sendingChain is a Client's sending middleware: the middleware given,
// and the chain they make, read by each call without a lock.
type sendingChain struct {
	sendMu  sync.Mutex
	sendMW  []router.Middleware
	sending atomic.Pointer[router.Handler]
}

// sendRequest is the innermost handler of the sending middleware: it
// sends the request in the session of ctx.
func sendRequest(ctx context.Context, req *router.Request) (any, error) {
	s := clientSessionFrom(ctx)
	if s == nil {
		return nil, errNoSession
	}
	var params any
	if req.Params != nil {
		params = codec.Raw(req.Params)
	}
	var raw codec.Raw
	if err := s.send(ctx, req.Method, params, &raw); err != nil {
		return nil, err
	}
	return raw, nil
}

// callVia sends a request through the sending middleware h.
func (s *ClientSession) callVia(ctx context.Context, h router.Handler, method string, params, result any) error {
	p, err := encodeParams(params)
	if err != nil {
		return err
	}
	v, err := h.Handle(context.WithValue(ctx, clientSessionKey{}, s), &router.Request{Method: method, ID: []byte{}, Params: p})
	if err != nil || result == nil {
		return err
	}
	raw, ok := v.(codec.Raw)
	if !ok {
		if raw, err = codec.AppendValue(nil, v); err != nil {
			return err
		}
	}
	return s.decode(raw, result)
}
