package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// The breakdown by target of a run of several (Report.Targets), as the
// text table and the HTML page show it: one row per target, beside the
// totals, which stay as they are for one target.

// targetRow is a target's row, in words.
type targetRow struct {
	Target, Conns, Requests, Responses, Errors, RPS string
	ErrorNotes                                      []string // the errors by kind
	Latency                                         []htmlCell
	Bad                                             bool // it had errors
}

// targetRows puts ts into words.
func targetRows(ts []TargetReport) []targetRow {
	rows := make([]targetRow, len(ts))
	for i := range ts {
		t := &ts[i]
		conns := fmt.Sprint(t.Conns)
		if t.FailedConns > 0 {
			conns += fmt.Sprintf(" (%d failed)", t.FailedConns)
		}
		rows[i] = targetRow{
			Target: t.Target, Conns: conns,
			Requests: thousands(t.Requests), Responses: thousands(t.Responses),
			Errors:     thousands(t.Errors),
			ErrorNotes: kindNotes(t.ErrorCodes, t.TransportErrors, t.Mismatches, t.Lost, t.Duplicates, t.Unknown),
			RPS:        thousands(int64(t.ThroughputRPS + 0.5)),
			Bad:        t.Errors > 0 || t.FailedConns > 0,
		}
		for _, c := range latencyCells(t.LatencyUS) {
			if c.Name == "min" || c.Name == "mean" {
				continue
			}
			if t.Responses == 0 {
				c.Value = "–"
			}
			rows[i].Latency = append(rows[i].Latency, c)
		}
	}
	return rows
}

// writeTargets prints the breakdown by target, if the run had several.
func writeTargets(w io.Writer, ts []TargetReport) error {
	if len(ts) == 0 {
		return nil
	}
	rows := targetRows(ts)
	tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', 0)
	fmt.Fprintf(tw, "\n  by target\tconnections\trequests\tresponses\treq/s")
	for _, c := range rows[0].Latency {
		fmt.Fprintf(tw, "\t%s", c.Name)
	}
	fmt.Fprintf(tw, "\terrors\n")
	for _, r := range rows {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s", r.Target, r.Conns, r.Requests, r.Responses, r.RPS)
		for _, c := range r.Latency {
			fmt.Fprintf(tw, "\t%s", c.Value)
		}
		errs := r.Errors
		if len(r.ErrorNotes) > 0 {
			errs += "  (" + strings.Join(r.ErrorNotes, ", ") + ")"
		}
		fmt.Fprintf(tw, "\t%s\n", errs)
	}
	return tw.Flush()
}
