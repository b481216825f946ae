//go:build !race

package conn_test

import (
	"testing"

	"github.com/mcpwire/mcpwire/conn"
)

// loneBudget bounds the allocations of a session alone in the process
// serving one pooled request (serveLone: a JSON-RPC POST without a
// session) while its server holds the shared pool open (Conn.HoldSharedPool,
// as transport's HTTP handlers do): the session and its request (14
// measured; 21 before a session without a stream shared its writer, its
// limits, its logger and closed channels; 50 with no holder, each session
// then making and closing the pool: BenchmarkServeBody_lone).
const loneBudget = 15

func TestAllocs_loneSessionServeBody(t *testing.T) {
	defer holdSharedPool(t)()
	opts := &conn.Options{Router: pooledEchoRouter()}
	serveLone(t, opts) // warm the router and the buffer pools
	if n := testing.AllocsPerRun(500, func() { serveLone(t, opts) }); n > loneBudget {
		t.Errorf("%.1f allocs per lone session's pooled request, budget %d", n, loneBudget)
	}
}

// inlineLoneBudget bounds the allocations of a session alone serving one
// inline request and shut down, as an HTTP POST to /rpc is (serveInlineLone):
// 11 measured, the test's reply closure and the handler's result among
// them (19 before a session without a stream shared its writer, limits,
// logger and closed channels, and waited for an inline answer with no
// channel).
const inlineLoneBudget = 11

func TestAllocs_loneSessionInline(t *testing.T) {
	opts := &conn.Options{Router: echoRouter()}
	serveInlineLone(t, opts)
	if n := testing.AllocsPerRun(500, func() { serveInlineLone(t, opts) }); n > inlineLoneBudget {
		t.Errorf("%.1f allocs per lone session's inline request, budget %d", n, inlineLoneBudget)
	}
}
