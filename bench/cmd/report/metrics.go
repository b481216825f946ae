package main

// metricsImpl is mcpwire with Prometheus metrics on (bench/echo's
// mcpwire-metrics, and W4's): not a peer; its figures beside mcpwire's
// are what observing every request costs.
const metricsImpl = "mcpwire-metrics"

// metricsBound is how much worse than mcpwire's own a figure with metrics
// on may be: 10%.
const metricsBound = 0.10

// modeCost is a section of the report that sets the figures of mcpwire in
// one mode beside those of mcpwire in another, workload by workload, with
// how much worse the first is and whether that is within bound.
type modeCost struct {
	title, intro string
	pairs        [][2]string // {the mode, the figure it is set beside}
	bound        float64     // how much worse a figure may be: 0.10 is 10%
}

// modeCosts are the report's mode sections.
var modeCosts = []modeCost{
	{
		title: "Metrics cost",
		intro: "mcpwire with Prometheus metrics on (`impl=" + metricsImpl + "`: package metrics' Collector as `conn.Options.Metrics`, every request counted and timed) beside mcpwire without, in the same run. Target: every figure within 10% of the one without.",
		pairs: [][2]string{{metricsImpl, "mcpwire"}},
		bound: metricsBound,
	},
	{
		title: "Stateless cost",
		intro: "MCP tools/call under protocol 2026-07-28 (`impl=mcpwire-stateless`, `mcpwire-fasthttp-stateless`: no session, the request's `_meta` and the headers that mirror it on every call) beside the same call in an existing 2025-11-25 session of the same server, in the same run. Target: no slower.",
		pairs: [][2]string{{"mcpwire-stateless", "mcpwire"}, {"mcpwire-fasthttp-stateless", "mcpwire-fasthttp"}},
	},
}

// cost is how much worse e's figure of impl is than its figure of base,
// as a fraction (0.05: 5% worse; below 0, better), and whether e has both.
func cost(e entry, impl, base string) (float64, bool) {
	on, okOn := e.Impls[impl]
	off, okOff := e.Impls[base]
	if !okOn || !okOff {
		return 0, false
	}
	return advantage(e, off, on) - 1, true
}

// writeModeCosts writes each mode section for which the run has figures.
func writeModeCosts(p func(string, ...any), res results) {
	for _, m := range modeCosts {
		header := false
		for _, wl := range workloads {
			e, ok := res.Workloads[wl.key]
			if !ok {
				continue
			}
			for _, pair := range m.pairs {
				c, ok := cost(e, pair[0], pair[1])
				if !ok {
					continue
				}
				if !header {
					header = true
					p("\n## %s\n\n%s\n\n", m.title, m.intro)
					p("| workload | unit | impl | figure | beside | its figure | cost | met |\n|---|---|---|---|---|---|---|---|\n")
				}
				p("| %s | %s | %s | %s | %s | %s | %+.1f%% | %s |\n", wl.key, e.Unit, pair[0], format(e.Unit, e.Impls[pair[0]]),
					pair[1], format(e.Unit, e.Impls[pair[1]]), c*100, map[bool]string{true: "**yes**", false: "no"}[c <= m.bound])
			}
		}
	}
}
