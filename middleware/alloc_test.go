//go:build !race

package middleware_test

import (
	"context"
	"testing"

	"github.com/mcpwire/mcpwire/router"
)

// The allocation budget of each middleware per call (BenchmarkMiddleware's
// cases): nothing when it has nothing to do, and one context when it puts
// a value in one (the principal; the trace).
func TestMiddleware_allocations(t *testing.T) {
	budget := map[string]float64{
		"none":              0,
		"logging/disabled":  0,
		"logging/enabled":   0, // slog's JSON handler to io.Discard
		"auth/header":       1, // the principal's context
		"auth/meta":         2, // and the token, unescaped out of params
		"ratelimit/session": 0,
		"ratelimit/ip":      0,
		"trace/absent":      0,
		"trace/header":      1, // the trace's context
		"trace/meta":        2, // and the two strings out of params
		"chain/header":      2,
	}
	for _, bc := range benchCases(t) {
		want, ok := budget[bc.name]
		if !ok {
			t.Errorf("%s: no budget", bc.name)
			continue
		}
		var h router.Handler = router.HandlerFunc(func(context.Context, *router.Request) (any, error) { return true, nil })
		if bc.mw != nil {
			h = bc.mw(h)
		}
		if got := testing.AllocsPerRun(100, func() { h.Handle(bc.ctx, bc.req) }); got != want {
			t.Errorf("%s: %v allocations per call, want %v", bc.name, got, want)
		}
	}
}
