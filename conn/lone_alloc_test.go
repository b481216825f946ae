//go:build !race

package conn_test

import (
	"testing"

	"github.com/mcpwire/mcpwire/conn"
)

// loneBudget bounds the allocations of a session alone in the process
// serving one pooled request (serveLone: a JSON-RPC POST without a
// session): the session, its request, and the shared pool it makes and
// closes (26 measured). On ants, whose pool starts two goroutines of its
// own, the same session cost 52.
const loneBudget = 27

func TestAllocs_loneSessionServeBody(t *testing.T) {
	opts := &conn.Options{Router: pooledEchoRouter()}
	serveLone(t, opts) // warm the router and the buffer pools
	if n := testing.AllocsPerRun(500, func() { serveLone(t, opts) }); n > loneBudget {
		t.Errorf("%.1f allocs per lone session's pooled request, budget %d", n, loneBudget)
	}
}
