package main

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
)

// writeTable prints the report for people.
func writeTable(w io.Writer, r *Report) error {
	loop := fmt.Sprintf("closed loop, %d connection%s × depth %d", r.Conns, plural(r.Conns), r.Depth)
	if r.Mode == "open" {
		loop = fmt.Sprintf("open loop at %s over %d connection%s", rateText(r.Rate), r.Conns, plural(r.Conns))
	}
	fmt.Fprintf(w, "\nloadgen → %s · %s · %s · %.1fs\n\n", r.Target, r.Call, loop, r.DurationS)
	tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', 0)
	fmt.Fprintf(tw, "  requests\t%s  (notifications %s)\n", thousands(r.Requests), thousands(r.Notifications))
	fmt.Fprintf(tw, "  responses\t%s  (ok %s)\n", thousands(r.Responses), thousands(r.OK))
	if d := errorDetail(r); d != "" {
		fmt.Fprintf(tw, "  errors\t%s  (%s)\n", thousands(r.Errors), d)
	} else {
		fmt.Fprintf(tw, "  errors\t%s\n", thousands(r.Errors))
	}
	fmt.Fprintf(tw, "  throughput\t%s req/s\n", thousands(int64(r.ThroughputRPS+0.5)))
	if l := r.LatencyUS; r.Responses > 0 {
		fmt.Fprintf(tw, "  latency\tp50 %s  p90 %s  p99 %s  p99.9 %s  max %s  (mean %s)\n",
			latencyText(l.P50), latencyText(l.P90), latencyText(l.P99), latencyText(l.P999), latencyText(l.Max), latencyText(l.Mean))
	} else {
		fmt.Fprintf(tw, "  latency\tno answers\n")
	}
	fmt.Fprintf(tw, "  bytes\tsent %s  received %s\n", byteText(r.BytesSent), byteText(r.BytesReceived))
	in := ""
	if r.CPU.InProcess {
		in = ", the server's included"
	}
	fmt.Fprintf(tw, "  loadgen cpu\t%.2f cores of %d, on %d processor%s  (user %.1fs, system %.1fs%s)\n", r.CPU.Cores, r.CPU.Machine, r.CPU.Procs, plural(r.CPU.Procs), r.CPU.UserS, r.CPU.SystemS, in)
	if r.Responses > 0 {
		fmt.Fprintf(tw, "  cpu per call\t%s\n", perCallText(r.CPU))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if err := writeTargets(w, r.Targets); err != nil {
		return err
	}
	for _, c := range slices.Sorted(maps.Keys(r.ErrorSamples)) {
		fmt.Fprintf(w, "\n  first error %s: %s", c, r.ErrorSamples[c])
	}
	for _, s := range r.Warnings {
		fmt.Fprintf(w, "\n  warning: %s", s)
	}
	for _, s := range r.Failed {
		fmt.Fprintf(w, "\n  FAILED: %s", s)
	}
	_, err := fmt.Fprintln(w)
	return err
}

// errorDetail says what the errors were.
func errorDetail(r *Report) string { return strings.Join(errorNotes(r), ", ") }

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// perCallText says the CPU time per answer: loadgen's, and the server's
// when loadgen started it.
func perCallText(c CPU) string {
	if c.InProcess {
		return fmt.Sprintf("%s, loadgen and the server together (in process, they cannot be told apart)", latencyText(c.PerCallUS))
	}
	s := "loadgen " + latencyText(c.PerCallUS)
	if c.ServerPerCallUS > 0 {
		s += fmt.Sprintf(", the servers it started %s (loadgen/server %.2f)", latencyText(c.ServerPerCallUS), c.PerCallUS/c.ServerPerCallUS)
	}
	return s
}
