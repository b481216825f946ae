package demoserver

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
// methods and echo to s as plain JSON-RPC methods (mcp.Server.AddPlainMethod):
// they are no part of MCP, so they are served on every session at any
// time, before initialize too, and a stream that never speaks MCP gets the
// plain JSON-RPC server it always had. (echo here is the JSON-RPC method;
// MCP's echo is a tool, called through tools/call.) They are cheap and
// never block, so they run inline on the reader, unless inline is false
// (-inline=false): then they go through the pool like any handler, which
// is how the cost of the hand-off is measured.
func registerSpecMethods(s *mcp.Server, log *slog.Logger, inline bool) error {
	opts := &router.MethodOptions{Inline: inline}
	notify := func(name string) router.Handler {
		return router.HandlerFunc(func(_ context.Context, req *router.Request) (any, error) {
			log.Debug("notification", "method", name, "params", string(req.Params))
			return nil, nil
		})
	}
	methods := []struct {
		name string
		h    router.Handler
	}{
		{"subtract", router.Func(func(_ context.Context, p subtractParams) (float64, error) {
			return p.Minuend - p.Subtrahend, nil
		})},
		{"sum", router.Func(func(_ context.Context, xs []float64) (float64, error) {
			var s float64
			for _, x := range xs {
				s += x
			}
			return s, nil
		})},
		{"get_data", router.HandlerFunc(func(context.Context, *router.Request) (any, error) {
			return codec.Raw(`["hello",5]`), nil
		})},
		// echo returns its params unchanged (null when there are none).
		{"echo", router.HandlerFunc(func(_ context.Context, req *router.Request) (any, error) {
			return codec.Raw(req.Params), nil
		})},
		{"update", notify("update")},
		{"notify_hello", notify("notify_hello")},
		{"notify_sum", notify("notify_sum")},
	}
	for _, m := range methods {
		if err := s.AddPlainMethod(m.name, m.h, opts); err != nil {
			return err
		}
	}
	return nil
}
