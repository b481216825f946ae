package main

// metricsImpl is mcpwire with Prometheus metrics on (bench/echo's
// mcpwire-metrics, and W4's): not a peer; its figures beside mcpwire's
// are what observing every request costs.
const metricsImpl = "mcpwire-metrics"

// metricsBound is how much worse than mcpwire's own a figure with metrics
// on may be: 10%.
const metricsBound = 0.10

// metricsCost is how much worse mcpwire's figure is with metrics on than
// without, as a fraction (0.05: 5% worse; below 0, better), and whether
// the workload has both.
func metricsCost(e entry) (float64, bool) {
	on, okOn := e.Impls[metricsImpl]
	off, okOff := e.Impls["mcpwire"]
	if !okOn || !okOff {
		return 0, false
	}
	return advantage(e, off, on) - 1, true
}

// writeMetricsCost writes the section that sets each workload's figure
// with metrics on beside the figure without, if the run has any.
func writeMetricsCost(p func(string, ...any), res results) {
	header := false
	for _, wl := range workloads {
		e, ok := res.Workloads[wl.key]
		if !ok {
			continue
		}
		cost, ok := metricsCost(e)
		if !ok {
			continue
		}
		if !header {
			header = true
			p("\n## Metrics cost\n\nmcpwire with Prometheus metrics on (`impl=%s`: package metrics' Collector as `conn.Options.Metrics`, every request counted and timed) beside mcpwire without, in the same run. Target: every figure within %.0f%% of the one without.\n\n", metricsImpl, metricsBound*100)
			p("| workload | unit | mcpwire | with metrics | cost | within %.0f%% |\n|---|---|---|---|---|---|\n", metricsBound*100)
		}
		p("| %s | %s | %s | %s | %+.1f%% | %s |\n", wl.key, e.Unit, format(e.Unit, e.Impls["mcpwire"]), format(e.Unit, e.Impls[metricsImpl]),
			cost*100, map[bool]string{true: "**yes**", false: "no"}[cost <= metricsBound])
	}
}
