package main

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
)

// writeTable prints the report for people.
func writeTable(w io.Writer, r *Report) error {
	loop := fmt.Sprintf("closed loop, %d connection%s × depth %d", r.Conns, plural(r.Conns), r.Depth)
	if r.Mode == "open" {
		loop = fmt.Sprintf("open loop at %s/s over %d connection%s", r.Rate, r.Conns, plural(r.Conns))
	}
	fmt.Fprintf(w, "\nloadgen → %s · %s · %s · %.1fs\n\n", r.Target, r.Call, loop, r.DurationS)
	tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', 0)
	fmt.Fprintf(tw, "  requests\t%s  (notifications %s)\n", count(r.Requests), count(r.Notifications))
	fmt.Fprintf(tw, "  responses\t%s  (ok %s)\n", count(r.Responses), count(r.OK))
	if d := errorDetail(r); d != "" {
		fmt.Fprintf(tw, "  errors\t%s  (%s)\n", count(r.Errors), d)
	} else {
		fmt.Fprintf(tw, "  errors\t%s\n", count(r.Errors))
	}
	fmt.Fprintf(tw, "  throughput\t%s req/s\n", count(int64(r.ThroughputRPS+0.5)))
	l := r.LatencyUS
	fmt.Fprintf(tw, "  latency\tp50 %s  p90 %s  p99 %s  p99.9 %s  max %s  (mean %s)\n",
		micros(l.P50), micros(l.P90), micros(l.P99), micros(l.P999), micros(l.Max), micros(l.Mean))
	fmt.Fprintf(tw, "  bytes\tsent %s  received %s\n", size(r.BytesSent), size(r.BytesReceived))
	in := ""
	if r.CPU.InProcess {
		in = ", the server's included"
	}
	fmt.Fprintf(tw, "  loadgen cpu\t%.2f cores of %d  (user %.1fs, system %.1fs%s)\n", r.CPU.Cores, r.CPU.Machine, r.CPU.UserS, r.CPU.SystemS, in)
	if err := tw.Flush(); err != nil {
		return err
	}
	codes := make([]string, 0, len(r.ErrorSamples))
	for c := range r.ErrorSamples {
		codes = append(codes, c)
	}
	slices.Sort(codes)
	for _, c := range codes {
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
func errorDetail(r *Report) string {
	var parts []string
	codes := make([]string, 0, len(r.ErrorCodes))
	for c := range r.ErrorCodes {
		codes = append(codes, c)
	}
	slices.Sort(codes)
	for _, c := range codes {
		parts = append(parts, fmt.Sprintf("code %s: %s", c, count(r.ErrorCodes[c])))
	}
	for _, f := range []struct {
		name string
		n    int64
	}{{"transport", r.TransportErrors}, {"mismatched", r.Mismatches}, {"lost", r.Lost}, {"duplicates", r.Duplicates}, {"unknown ids", r.Unknown}} {
		if f.n > 0 {
			parts = append(parts, fmt.Sprintf("%s: %s", f.name, count(f.n)))
		}
	}
	return strings.Join(parts, ", ")
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// count writes n with thousands separated: 1,234,567.
func count(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// micros writes a latency in microseconds in the unit that reads best.
func micros(us float64) string {
	switch {
	case us >= 1e6:
		return strconv.FormatFloat(us/1e6, 'f', 2, 64) + "s"
	case us >= 1e3:
		return strconv.FormatFloat(us/1e3, 'f', 2, 64) + "ms"
	}
	return strconv.FormatFloat(us, 'f', 1, 64) + "µs"
}

// size writes a byte count in the unit that reads best.
func size(n int64) string {
	f := float64(n)
	for _, u := range []string{"B", "KB", "MB", "GB"} {
		if f < 1000 || u == "GB" {
			if u == "B" {
				return strconv.FormatInt(n, 10) + " B"
			}
			return strconv.FormatFloat(f, 'f', 1, 64) + " " + u
		}
		f /= 1000
	}
	return ""
}
