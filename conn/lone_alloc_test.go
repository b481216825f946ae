//go:build !race

package conn_test

import (
	"testing"

	"github.com/mcpwire/mcpwire/conn"
)

// loneBudget bounds the allocations of a session alone in the process
// serving one pooled request (serveLone: a JSON-RPC POST without a
// session) while its server holds the shared pool open (Conn.HoldSharedPool,
// as transport's HTTP handlers do): the session and its request (21
// measured; 50 with no holder, each session then making and closing the
// pool: BenchmarkServeBody_lone).
const loneBudget = 22

func TestAllocs_loneSessionServeBody(t *testing.T) {
	defer holdSharedPool(t)()
	opts := &conn.Options{Router: pooledEchoRouter()}
	serveLone(t, opts) // warm the router and the buffer pools
	if n := testing.AllocsPerRun(500, func() { serveLone(t, opts) }); n > loneBudget {
		t.Errorf("%.1f allocs per lone session's pooled request, budget %d", n, loneBudget)
	}
}
