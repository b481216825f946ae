//go:build !race

package transport_test

import "testing"

// pooledPOSTBudget bounds the allocations of one POST on /rpc whose
// handler runs on the shared pool: a session alone in the process, which
// makes that pool and closes it: 54 measured, 56 now and then; 83 when
// the pool was on ants.
const pooledPOSTBudget = 58

func TestHTTPHandler_allocsPooledPOST(t *testing.T) {
	h, serve := pooledEchoHandler(t)
	serve(h)
	if n := testing.AllocsPerRun(300, func() { serve(h) }); n > pooledPOSTBudget {
		t.Errorf("%.0f allocs per POST with a pooled handler; the budget is %d", n, pooledPOSTBudget)
	}
}
