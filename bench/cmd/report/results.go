package main

import (
	"math"
	"slices"
	"strings"

	"github.com/mcpwire/mcpwire/bench/internal/benchout"
)

// results.json, exactly: the Go version, the CPU, and per workload the
// unit, which way is better and each implementation's median.
type results struct {
	Go        string           `json:"go"`
	CPU       string           `json:"cpu"`
	Workloads map[string]entry `json:"workloads"`
}

type entry struct {
	Unit   string             `json:"unit"`
	Better string             `json:"better"`
	Impls  map[string]float64 `json:"impls"`
}

// collect takes the median of each implementation's samples of each
// workload (rounded to 4 significant digits); a workload with no samples
// is left out.
func collect(rs []benchout.Result, goVersion, cpu string) results {
	out := results{Go: goVersion, CPU: cpu, Workloads: map[string]entry{}}
	for _, w := range workloads {
		samples := map[string][]float64{}
		for _, r := range rs {
			if v, ok := r.Values[w.unit]; ok && r.Row == w.bench {
				samples[r.Impl] = append(samples[r.Impl], v)
			}
		}
		if len(samples) == 0 {
			continue
		}
		e := entry{Unit: w.unit, Better: w.better, Impls: map[string]float64{}}
		for impl, v := range samples {
			e.Impls[impl] = round4(benchout.Median(v))
		}
		out.Workloads[w.key] = e
	}
	return out
}

// round4 rounds v to 4 significant digits.
func round4(v float64) float64 {
	if v == 0 || math.IsInf(v, 0) || math.IsNaN(v) {
		return v
	}
	p := math.Pow(10, 3-math.Floor(math.Log10(math.Abs(v))))
	return math.Round(v*p) / p
}

// advantage is how many times better a is than b: b/a when lower is
// better, a/b when higher is. Above 1, a leads.
func advantage(e entry, a, b float64) float64 {
	if a == 0 || b == 0 {
		return math.NaN()
	}
	if e.Better == "lower" {
		return b / a
	}
	return a / b
}

// bestPeer returns the peer (not mcpwire, not a baseline) with the best
// median, or "" if there is none.
func bestPeer(e entry) string {
	best := ""
	for _, impl := range sortedImpls(e) {
		if impl == "mcpwire" || baselines[impl] {
			continue
		}
		if best == "" || advantage(e, e.Impls[impl], e.Impls[best]) > 1 {
			best = impl
		}
	}
	return best
}

// sortedImpls lists e's implementations in implOrder, then by name.
func sortedImpls(e entry) []string {
	var out []string
	for impl := range e.Impls {
		out = append(out, impl)
	}
	rank := func(s string) int {
		if i := slices.Index(implOrder, s); i >= 0 {
			return i
		}
		return len(implOrder)
	}
	slices.SortFunc(out, func(a, b string) int {
		if d := rank(a) - rank(b); d != 0 {
			return d
		}
		return strings.Compare(a, b)
	})
	return out
}
