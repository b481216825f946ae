package conn_test

import (
	"net"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/metrics"
)

// The echo servers again with package metrics' Prometheus Collector as
// Options.Metrics: what observing every request costs (the +prometheus
// rows of BenchmarkEchoPipelined and BenchmarkEchoRoundTrip).

func prometheusMetrics(tb testing.TB) conn.Metrics {
	tb.Helper()
	col, err := metrics.New(prometheus.NewRegistry(), nil)
	if err != nil {
		tb.Fatal(err)
	}
	return col
}

func mcpwirePrometheusServer(b *testing.B, nc net.Conn) func() {
	return mcpwireEcho(nc, prometheusMetrics(b))
}

func mcpwirePooledPrometheusServer(b *testing.B, nc net.Conn) func() {
	return mcpwirePooledEcho(b, nc, prometheusMetrics(b))
}
