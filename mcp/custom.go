package mcp

import (
	"context"
	"errors"

	"github.com/mcpwire/mcpwire/router"
)

// ErrReservedMethod refuses AddMethod for a method the protocol defines.
var ErrReservedMethod = errors.New("mcp: the method is defined by the protocol")

// AddMethod serves a method (or a notification) of the user's own beside
// the protocol's, on every session once it is initialised (before, it is
// refused like any other request), and to requests of a stateless
// version, whose results get the members that version adds (see the
// package documentation). h finds its session with SessionFromContext. opts may be nil. The names of the protocol's own
// methods are refused with ErrReservedMethod.
func (s *Server) AddMethod(name string, h router.Handler, opts *router.MethodOptions) error {
	if h == nil {
		return router.ErrNilHandler
	}
	if _, ok := s.protocol[name]; ok {
		return ErrReservedMethod
	}
	return s.router.Register(name, router.HandlerFunc(func(ctx context.Context, req *router.Request) (any, error) {
		ctx, ss, err := sessionOf(ctx, afterInit|stateless, req, nil)
		if err != nil {
			return nil, err
		}
		res, err := h.Handle(ctx, req)
		return ss.result(afterInit, req.Method, res, err)
	}), opts)
}

// AddPlainMethod serves a method (or a notification) of the user's own
// that is not part of MCP at all: plain JSON-RPC sharing the stream with
// MCP, served at any time, before initialize too, and never gated by the
// session's state. The demo server answers the JSON-RPC specification's
// examples this way beside MCP. h may still find its session with
// SessionFromContext (nil outside of one); it must not rely on anything
// negotiated at initialize. opts may be nil. The names of the protocol's
// own methods are refused with ErrReservedMethod.
func (s *Server) AddPlainMethod(name string, h router.Handler, opts *router.MethodOptions) error {
	if h == nil {
		return router.ErrNilHandler
	}
	if _, ok := s.protocol[name]; ok {
		return ErrReservedMethod
	}
	return s.router.Register(name, h, opts)
}

// RemoveMethod stops serving a method added by AddMethod or
// AddPlainMethod.
func (s *Server) RemoveMethod(name string) bool {
	if _, ok := s.protocol[name]; ok {
		return false
	}
	return s.router.Unregister(name)
}

// Use wraps every method the server serves — the protocol's own
// (initialize, tools/call…) and those added by AddMethod and
// AddPlainMethod, present and future — in middleware, the first given
// outermost (router.Router.Use): package middleware has logging,
// authentication, rate limiting and trace context.
func (s *Server) Use(mw ...router.Middleware) { s.router.Use(mw...) }
