//go:build !race

package transport_test

import (
	"testing"

	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/transport"
)

// inlinePOSTBudget bounds the allocations of one POST on /rpc whose
// handler runs inline, as the demo server's echo does, httptest's
// request and recorder included: 37 measured (38 when a session without
// limits took a slot of the handler's registry; 46 before a session
// without a stream shared its writer, limits, logger and closed channels;
// 50 before the answer's state was pooled).
const inlinePOSTBudget = 38

func TestHTTPHandler_allocsInlinePOST(t *testing.T) {
	h := transport.NewHTTPHandler(&conn.Options{Router: rpcRouter(nil)}, &transport.HTTPOptions{
		ReadTimeout: transport.DefaultHTTPReadTimeout, WriteTimeout: transport.DefaultHTTPWriteTimeout,
	})
	postEcho(t, h)
	if n := testing.AllocsPerRun(300, func() { postEcho(t, h) }); n > inlinePOSTBudget {
		t.Errorf("%.0f allocs per POST with an inline handler; the budget is %d", n, inlinePOSTBudget)
	}
}
