//go:build !race

package bench

import (
	"context"
	"testing"
)

// TestMcpwireCallAllocs holds mcpwire to what one tools/call round trip of
// the echo tool in memory (conn.InProcess, and conn.Pipe) allocated,
// client and server together, when the budgets were set: lower a budget
// when mcpwire improves, never raise it to make a regression pass. (Where
// they go: README.md.)
func TestMcpwireCallAllocs(t *testing.T) {
	for _, c := range []struct {
		impl
		budget float64
	}{
		{impl{"mcpwire", mcpwireMem}, 12},
		{impl{"mcpwire-pooled", mcpwirePooledMem}, 12},
		{impl{"mcpwire-pipe", mcpwirePipe}, 11},
	} {
		im := c.impl
		t.Run(im.name, func(t *testing.T) {
			call, stop := im.start(t)
			defer stop()
			ctx := context.Background()
			const msg = "hello, world"
			once := func() {
				if got, err := call(ctx, msg); err != nil || got != msg {
					t.Fatalf("got %q, %v", got, err)
				}
			}
			for range 100 { // warm the pools and sonic's compiled codecs
				once()
			}
			got := testing.AllocsPerRun(1000, once)
			t.Logf("%.0f allocs per call (budget %.0f)", got, c.budget)
			if got > c.budget {
				t.Errorf("%.0f allocs per tools/call round trip, budget %.0f", got, c.budget)
			}
		})
	}
}
