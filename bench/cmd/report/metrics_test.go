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
		"| W1 | ns/op | 2.00 µs | 2.10 µs | +5.0% | **yes** |",
		"| W2 | ns/op | 300 ns | 400 ns | +33.3% | no |",
		"| W6 | req/s | 1,000,000 req/s | 800,000 req/s | +25.0% | no |",
	} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("RESULTS.md lacks %q", want)
		}
	}
	if strings.Contains(md.String(), "| W3 | ns/item |") {
		t.Error("W3, without metrics figures, has a line in the metrics section")
	}
}
