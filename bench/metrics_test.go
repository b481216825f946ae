package bench

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/metrics"
)

// mcpwireMetricsStdio is mcpwireStdio with Prometheus metrics on (package
// metrics' Collector, on a registry of its own, as the server's
// conn.Options.Metrics): W4's impl=mcpwire-metrics, what observing every
// call costs.
func mcpwireMetricsStdio(tb testing.TB) (caller, func()) {
	col, err := metrics.New(prometheus.NewRegistry(), nil)
	if err != nil {
		tb.Fatal(err)
	}
	return mcpwireStdioWith(tb, &mcp.ServerOptions{Conn: &conn.Options{Metrics: col}})
}
