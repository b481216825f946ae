package echo

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/metrics"
)

// newMcpwireMetrics is mcpwire with Prometheus metrics on: package
// metrics' Collector, on a registry of its own, as conn.Options.Metrics.
// Beside mcpwire's figures, its own are what observing every request
// costs.
func newMcpwireMetrics() Server {
	col, err := metrics.New(prometheus.NewRegistry(), nil)
	if err != nil {
		panic(err) // a new registry refuses nothing
	}
	return &mcpwireServer{opts: &conn.Options{Router: mcpwireRouter(), Metrics: col}}
}
