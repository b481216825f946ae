package main

import (
	"strings"
	"testing"
)

// The metrics section sets mcpwire-metrics beside mcpwire for every
// workload that has both, and says which are within 10%, whichever way is
// better.
func TestWriteMarkdown_metricsCost(t *testing.T) {
	res := results{Workloads: map[string]entry{
		"W1": {Unit: "ns/op", Better: "lower", Impls: map[string]float64{"mcpwire": 2000, metricsImpl: 2100, "geth": 6000}},
		"W2": {Unit: "ns/op", Better: "lower", Impls: map[string]float64{"mcpwire": 300, metricsImpl: 400, "geth": 3000}},
		"W6": {Unit: "req/s", Better: "higher", Impls: map[string]float64{"mcpwire": 1e6, metricsImpl: 8e5, "geth": 1e5}},
		"W3": {Unit: "ns/item", Better: "lower", Impls: map[string]float64{"mcpwire": 100, "geth": 3000}},
	}}
	var md strings.Builder
	if err := writeMarkdown(&md, res, meta{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"## Metrics cost",
		"| W1 | ns/op | mcpwire-metrics | 2.10 µs | mcpwire | 2.00 µs | +5.0% | **yes** |",
		"| W2 | ns/op | mcpwire-metrics | 400 ns | mcpwire | 300 ns | +33.3% | no |",
		"| W6 | req/s | mcpwire-metrics | 800,000 req/s | mcpwire | 1,000,000 req/s | +25.0% | no |",
	} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("RESULTS.md lacks %q", want)
		}
	}
	if strings.Contains(md.String(), "| W3 | ns/item |") {
		t.Error("W3, without metrics figures, has a line in the metrics section")
	}
	if strings.Contains(md.String(), "## Stateless cost") {
		t.Error("a stateless section without stateless figures")
	}
}

// The stateless section sets each stateless row beside the session row of
// the same server: no slower is met, slower is not.
func TestWriteMarkdown_statelessCost(t *testing.T) {
	res := results{Workloads: map[string]entry{
		"W8-outside": {Unit: "calls/s", Better: "higher", Impls: map[string]float64{"mcpwire": 70000, "mcpwire-stateless": 63000,
			"mcpwire-fasthttp": 80000, "mcpwire-fasthttp-stateless": 80000, "mcp-go": 30000}},
		"W8-pipelined": {Unit: "ns/op", Better: "lower", Impls: map[string]float64{"mcpwire": 20000, "mcpwire-stateless": 19000, "mcp-go": 40000}},
	}}
	var md strings.Builder
	if err := writeMarkdown(&md, res, meta{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"## Stateless cost",
		"| W8-pipelined | ns/op | mcpwire-stateless | 19.00 µs | mcpwire | 20.00 µs | -5.0% | **yes** |",
		"| W8-outside | calls/s | mcpwire-stateless | 63,000 calls/s | mcpwire | 70,000 calls/s | +11.1% | no |",
		"| W8-outside | calls/s | mcpwire-fasthttp-stateless | 80,000 calls/s | mcpwire-fasthttp | 80,000 calls/s | +0.0% | **yes** |",
	} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("RESULTS.md lacks %q", want)
		}
	}
	if strings.Contains(md.String(), "## Metrics cost") {
		t.Error("a metrics section without metrics figures")
	}
}
