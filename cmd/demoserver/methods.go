package main

import (
	"context"
	"log/slog"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/router"
)

// subtractParams takes the JSON-RPC specification's subtract params, by
// position ([minuend, subtrahend]) or by name.
type subtractParams struct {
	Minuend    float64 `json:"minuend"`
	Subtrahend float64 `json:"subtrahend"`
}

// registerSpecMethods adds the JSON-RPC 2.0 specification's example
// methods and echo to s as plain JSON-RPC methods (mcp.AddPlainMethod):
// they are no part of MCP, so they are served on every session at any
// time, before initialize too, and a stream that never speaks MCP gets the
// plain JSON-RPC server it always had. (echo here is the JSON-RPC method;
// MCP's echo is a tool, called through tools/call.)
func registerSpecMethods(s *mcp.Server, log *slog.Logger) error {
	inline := &router.MethodOptions{Inline: true}
	notify := func(name string) router.Handler {
		return router.HandlerFunc(func(_ context.Context, req *router.Request) (any, error) {
			log.Debug("notification", "method", name, "params", string(req.Params))
			return nil, nil
		})
	}
	methods := []struct {
		name string
		h    router.Handler
		opts *router.MethodOptions
	}{
		{"subtract", router.Func(func(_ context.Context, p subtractParams) (float64, error) {
			return p.Minuend - p.Subtrahend, nil
		}), inline},
		{"sum", router.Func(func(_ context.Context, xs []float64) (float64, error) {
			var s float64
			for _, x := range xs {
				s += x
			}
			return s, nil
		}), inline},
		{"get_data", router.HandlerFunc(func(context.Context, *router.Request) (any, error) {
			return codec.Raw(`["hello",5]`), nil
		}), inline},
		// echo returns its params unchanged (null when there are none).
		{"echo", router.HandlerFunc(func(_ context.Context, req *router.Request) (any, error) {
			return codec.Raw(req.Params), nil
		}), inline},
		{"update", notify("update"), inline},
		{"notify_hello", notify("notify_hello"), inline},
		{"notify_sum", notify("notify_sum"), inline},
	}
	for _, m := range methods {
		if err := s.AddPlainMethod(m.name, m.h, m.opts); err != nil {
			return err
		}
	}
	return nil
}
