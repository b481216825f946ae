//go:build !race

package transport_test

import "testing"

// pooledPOSTBudget bounds the allocations of one POST on /rpc whose
// handler runs on the shared pool: a session alone in the process, the
// pool held open by the handler (39 measured; 40 when a session without
// limits took a slot of the handler's registry; 47 before a session
// without a stream shared its writer, limits, logger and closed channels;
// 80 when each POST made and closed that pool, an ants pool; 54 before
// the answer's state was pooled).
const pooledPOSTBudget = 40

func TestHTTPHandler_allocsPooledPOST(t *testing.T) {
	h, serve := pooledEchoHandler(t)
	serve(h)
	if n := testing.AllocsPerRun(300, func() { serve(h) }); n > pooledPOSTBudget {
		t.Errorf("%.0f allocs per POST with a pooled handler; the budget is %d", n, pooledPOSTBudget)
	}
}
