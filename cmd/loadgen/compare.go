package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
)

// readReport reads a report written with -json. Its errors name the file.
func readReport(path string) (*Report, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading a report: %w", err) // err names the file
	}
	var r Report
	if err := json.Unmarshal(b, &r); err != nil {
		var syn *json.SyntaxError
		if errors.As(err, &syn) {
			return nil, fmt.Errorf("%s: not a loadgen JSON report: %w (at byte %d)", path, err, syn.Offset)
		}
		return nil, fmt.Errorf("%s: not a loadgen JSON report: %w", path, err)
	}
	if r.Target == "" {
		return nil, fmt.Errorf("%s: not a loadgen JSON report: it has no target", path)
	}
	return &r, nil
}

// writeCompare prints two runs side by side (-compare A.json B.json),
// with the ratio B/A of each measure that has one: above 1 is more in B
// (better for throughput, worse for latency and errors). The ratio is
// "–" where A measured 0 or either run had no answer to time.
func writeCompare(w io.Writer, a, b *Report, nameA, nameB string) error {
	var buf bytes.Buffer
	tw := tabwriter.NewWriter(&buf, 2, 8, 2, ' ', 0)
	fmt.Fprintf(tw, "\t%s\t%s\tB/A\n", nameA, nameB)
	for _, d := range comparedRuns {
		fmt.Fprintf(tw, "%s\t%s\t%s\t\n", d.name, d.text(a), d.text(b))
	}
	for _, m := range comparedMeasures {
		va, vb := m.value(a), m.value(b)
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", m.name, m.text(va), m.text(vb), ratioText(va, vb))
	}
	fmt.Fprintln(tw, "\nB/A above 1: B has more (better for throughput, worse for latency, errors, CPU).")
	if err := tw.Flush(); err != nil {
		return err
	}
	// the lines without a ratio end in the padding of their last column
	for line := range strings.Lines(buf.String()) {
		if _, err := io.WriteString(w, strings.TrimRight(line, " \n")+"\n"); err != nil {
			return err
		}
	}
	return nil
}

// comparedRuns are the lines of writeCompare that describe the runs:
// they have no ratio.
var comparedRuns = []struct {
	name string
	text func(*Report) string
}{
	{"target", func(r *Report) string { return r.Target }},
	{"call", func(r *Report) string { return r.Call }},
	{"load", loadText},
	{"duration", func(r *Report) string { return strconv.FormatFloat(r.DurationS, 'f', 2, 64) + " s" }},
}

// loadText says how a run made its load.
func loadText(r *Report) string {
	if r.Mode == "open" {
		return fmt.Sprintf("open loop at %s, %d conns", rateText(r.Rate), r.Conns)
	}
	return fmt.Sprintf("closed loop, %d conns × depth %d", r.Conns, r.Depth)
}

// measure is a number that writeCompare sets side by side.
type measure struct {
	name  string
	value func(*Report) float64
	text  func(float64) string
}

// comparedMeasures are the lines of writeCompare that have a ratio.
var comparedMeasures = []measure{
	{"throughput", func(r *Report) float64 { return r.ThroughputRPS }, func(v float64) string {
		return thousands(int64(v+0.5)) + " answers/s"
	}},
	{"latency p50", latencyOf(func(l Latency) float64 { return l.P50 }), measuredText(latencyText)},
	{"latency p90", latencyOf(func(l Latency) float64 { return l.P90 }), measuredText(latencyText)},
	{"latency p99", latencyOf(func(l Latency) float64 { return l.P99 }), measuredText(latencyText)},
	{"latency p99.9", latencyOf(func(l Latency) float64 { return l.P999 }), measuredText(latencyText)},
	{"latency max", latencyOf(func(l Latency) float64 { return l.Max }), measuredText(latencyText)},
	{"requests", func(r *Report) float64 { return float64(r.Requests) }, countText},
	{"errors", func(r *Report) float64 { return float64(r.Errors) }, countText},
	{"lost", func(r *Report) float64 { return float64(r.Lost) }, countText},
	{"duplicates", func(r *Report) float64 { return float64(r.Duplicates) }, countText},
	{"bytes sent", func(r *Report) float64 { return float64(r.BytesSent) }, func(v float64) string { return byteText(int64(v)) }},
	{"bytes received", func(r *Report) float64 { return float64(r.BytesReceived) }, func(v float64) string { return byteText(int64(v)) }},
	{"loadgen CPU", func(r *Report) float64 { return r.CPU.Cores }, func(v float64) string {
		return strconv.FormatFloat(v, 'f', 2, 64) + " cores"
	}},
	{"loadgen CPU per call", func(r *Report) float64 { return r.CPU.PerCallUS }, latencyText},
}

// latencyOf reads one figure of a report's latency, or NaN when the run
// had no answer to measure one from (its zeros are no latency).
func latencyOf(f func(Latency) float64) func(*Report) float64 {
	return func(r *Report) float64 {
		if r.Responses == 0 {
			return math.NaN()
		}
		return f(r.LatencyUS)
	}
}

// measuredText is text, or "– (no answers)" for a figure not measured
// (NaN).
func measuredText(text func(float64) string) func(float64) string {
	return func(v float64) string {
		if math.IsNaN(v) {
			return "– (no answers)"
		}
		return text(v)
	}
}

// countText writes a count held in a float64 with its thousands
// separated.
func countText(v float64) string { return thousands(int64(v)) }

// ratioText writes b/a as "2.31×", or "–" when a is 0 (no ratio to a
// run that had none) or either was not measured (NaN).
func ratioText(a, b float64) string {
	if a == 0 || math.IsNaN(a) || math.IsNaN(b) {
		return "–"
	}
	return strconv.FormatFloat(b/a, 'f', 2, 64) + "×"
}
