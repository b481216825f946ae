//go:build !race

package transport_test

import "testing"

// pooledPOSTBudget bounds the allocations of one POST on /rpc whose
// handler runs on the shared pool: a session alone in the process, which
// makes that pool and closes it: 51 measured, 52 now and then (the POST
// is httptest's request and recorder as well); 54 before the answer's
// state was pooled, 83 when the pool was on ants.
const pooledPOSTBudget = 55

func TestHTTPHandler_allocsPooledPOST(t *testing.T) {
	h, serve := pooledEchoHandler(t)
	serve(h)
	if n := testing.AllocsPerRun(300, func() { serve(h) }); n > pooledPOSTBudget {
		t.Errorf("%.0f allocs per POST with a pooled handler; the budget is %d", n, pooledPOSTBudget)
	}
}
