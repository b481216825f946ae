//go:build !race

package metrics

import (
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/codec"
)

// Once a method and its codes have been seen, reporting costs no
// allocation. (End to end through a session: conn's TestAllocs_… with
// metrics.)
func TestAllocs_reportingAllocatesNothing(t *testing.T) {
	c := newTestCollector(t)
	c.Answered("m", 0, time.Millisecond)
	c.Answered("m", codec.CodeInvalidParams, time.Millisecond)
	c.Refused("m", codec.CodeOverloaded)
	m := c.Method("m")
	n := testing.AllocsPerRun(1000, func() {
		c.InFlight(1)
		c.Answered("m", 0, time.Millisecond)
		c.Answered("m", codec.CodeInvalidParams, time.Millisecond)
		c.Refused("m", codec.CodeOverloaded)
		m.Answered(0, time.Millisecond)
		m.Answered(codec.CodeInvalidParams, time.Millisecond)
		m.Refused(codec.CodeOverloaded)
		c.InFlight(-1)
	})
	if n != 0 {
		t.Errorf("%.1f allocations per report, want 0", n)
	}
}
