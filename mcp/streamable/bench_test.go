package streamable_test

import (
	"context"
	"testing"

	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/mcp/streamable"
)

// BenchmarkStreamableHTTP_toolsCall calls the echo tool round trip over
// Streamable HTTP on a loopback address, with the handler's defaults (JSON
// unless the tool streams, which echo does not) and under
// Options.JSONResponse: the Go client and the handler, HTTP included.
func BenchmarkStreamableHTTP_toolsCall(b *testing.B) {
	for _, mode := range []struct {
		name string
		json bool
	}{{"default", false}, {"json", true}} {
		b.Run("mode="+mode.name, func(b *testing.B) {
			srv := mcp.NewServer(nil, nil)
			if err := addEcho(srv); err != nil {
				b.Fatal(err)
			}
			ts, _ := serveHTTP(b, srv, &streamable.Options{JSONResponse: mode.json})
			cs := connectHTTP(b, ts.URL, mcp.NewClient(nil, stateful)) // a call in a session
			ctx := context.Background()
			args := map[string]string{"message": "hello"}
			b.ReportAllocs()
			for b.Loop() {
				res, err := cs.CallTool(ctx, "echo", args)
				if err != nil || len(res.Content) != 1 {
					b.Fatal(res, err)
				}
			}
		})
	}
}
