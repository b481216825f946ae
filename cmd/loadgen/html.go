package main

import (
	"errors"
	"fmt"
	htmltemplate "html/template" // aliased: this package has a type named template
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
)

// writeHTML writes the report as one self-contained HTML page (-html): a
// summary table and three charts (latency over time, throughput over
// time, latency by percentile) drawn as inline SVG. The page loads
// nothing: no script, style, font or image from elsewhere, and its
// Content-Security-Policy forbids it, so it reads the same offline. All
// text from the report is escaped by html/template. A report with no
// timeline or no distribution says "no data" in place of that chart.
func writeHTML(w io.Writer, r *Report) error {
	if r == nil {
		return errors.New("html report: no report")
	}
	page := htmlPage{R: r, Rows: summaryRows(r), Latency: latencyCells(r.LatencyUS), Targets: targetRows(r.Targets)}
	for _, c := range []struct {
		title string
		draw  func() (htmltemplate.HTML, error)
	}{
		{"Latency over time", func() (htmltemplate.HTML, error) { return latencyChart(r.Timeline) }},
		{"Throughput over time", func() (htmltemplate.HTML, error) { return throughputChart(r.Timeline) }},
		{"Latency by percentile", func() (htmltemplate.HTML, error) { return distributionChart(r.Percentiles) }},
	} {
		svg, err := c.draw()
		if err != nil {
			return fmt.Errorf("html report: %s: %w", strings.ToLower(c.title), err)
		}
		page.Charts = append(page.Charts, htmlChart{Title: c.title, SVG: svg})
	}
	return pageTemplate.Execute(w, page)
}

// htmlPage is what pageTemplate fills in.
type htmlPage struct {
	R       *Report
	Rows    []htmlRow
	Latency []htmlCell
	Targets []targetRow // the breakdown of a run of several targets
	Charts  []htmlChart
}

// htmlRow is one line of the summary table.
type htmlRow struct {
	Name, Value string
	Notes       []string // details under the value, one a line
	Bad         bool     // something went wrong: the row is highlighted
}

// htmlCell is one column of the latency table.
type htmlCell struct{ Name, Value string }

// htmlChart is one chart; an empty SVG means there was nothing to draw.
type htmlChart struct {
	Title string
	SVG   htmltemplate.HTML
}

// summaryRows lists the report's numbers for the summary table.
func summaryRows(r *Report) []htmlRow {
	rows := []htmlRow{
		{Name: "target", Value: r.Target},
		{Name: "call", Value: r.Call},
		{Name: "mode", Value: modeText(r.Mode)},
		{Name: "connections", Value: strconv.Itoa(r.Conns)},
	}
	if r.Mode == "open" || r.Rate != "" {
		note := "calls per second over all connections"
		if strings.Contains(r.Rate, ":") {
			note += "; A:B/D ramps from A to B over D"
		}
		rows = append(rows, htmlRow{Name: "rate", Value: r.Rate, Notes: []string{note}})
	}
	if r.Mode != "open" || r.Depth != 0 {
		rows = append(rows, htmlRow{Name: "depth", Value: strconv.Itoa(r.Depth) + " in flight per connection"})
	}
	if !r.Start.IsZero() {
		rows = append(rows, htmlRow{Name: "start", Value: r.Start.Format(time.RFC3339)})
	}
	rows = append(rows,
		htmlRow{Name: "duration", Value: strconv.FormatFloat(r.DurationS, 'f', 2, 64) + " s"},
		htmlRow{Name: "requests", Value: thousands(r.Requests)},
	)
	if r.Notifications > 0 {
		rows = append(rows, htmlRow{Name: "notifications", Value: thousands(r.Notifications)})
	}
	rows = append(rows,
		htmlRow{Name: "responses", Value: thousands(r.Responses)},
		htmlRow{Name: "ok", Value: thousands(r.OK)},
		htmlRow{Name: "errors", Value: thousands(r.Errors), Notes: append(errorNotes(r), sampleNotes(r)...), Bad: r.Errors > 0},
		badRow("transport errors", r.TransportErrors),
		badRow("mismatches (-expect)", r.Mismatches),
		badRow("lost", r.Lost),
		badRow("duplicates", r.Duplicates),
		badRow("unknown ids", r.Unknown),
		htmlRow{Name: "throughput", Value: thousands(int64(r.ThroughputRPS+0.5)) + " answers/s"},
		htmlRow{Name: "bytes", Value: "sent " + byteText(r.BytesSent) + " · received " + byteText(r.BytesReceived)},
		cpuRow(r.CPU),
	)
	return rows
}

// modeText names the mode of the run.
func modeText(mode string) string {
	switch mode {
	case "closed":
		return "closed loop (-depth: a new request when an answer comes)"
	case "open":
		return "open loop (-rate: requests on a schedule, latency from the intended send)"
	}
	return mode
}

// badRow is a row of a count that should be zero.
func badRow(name string, n int64) htmlRow {
	return htmlRow{Name: name, Value: thousands(n), Bad: n > 0}
}

// errorNotes lists the error answers by code, then the other kinds of
// errors that were counted.
func errorNotes(r *Report) []string {
	return kindNotes(r.ErrorCodes, r.TransportErrors, r.Mismatches, r.Lost, r.Duplicates, r.Unknown)
}

// kindNotes lists error answers by code, then the other kinds of errors
// counted, as errorNotes does for a report or a target of it.
func kindNotes(codes map[string]int64, transport, mismatches, lost, duplicates, unknown int64) []string {
	notes := make([]string, 0, len(codes)+5)
	for _, c := range slices.Sorted(maps.Keys(codes)) {
		notes = append(notes, "code "+c+": "+thousands(codes[c]))
	}
	for _, f := range []struct {
		name string
		n    int64
	}{
		{"transport", transport}, {"mismatched", mismatches}, {"lost", lost},
		{"duplicates", duplicates}, {"unknown ids", unknown},
	} {
		if f.n > 0 {
			notes = append(notes, f.name+": "+thousands(f.n))
		}
	}
	return notes
}

// sampleNotes quotes the first error answer of each code, as the text
// table does (error_samples in the JSON report).
func sampleNotes(r *Report) []string {
	notes := make([]string, 0, len(r.ErrorSamples))
	for _, c := range slices.Sorted(maps.Keys(r.ErrorSamples)) {
		notes = append(notes, "first error "+c+": "+r.ErrorSamples[c])
	}
	return notes
}

// cpuRow says how much CPU the generator used.
func cpuRow(c CPU) htmlRow {
	row := htmlRow{
		Name:  "loadgen CPU",
		Value: fmt.Sprintf("%.2f cores of %d, on %d processor%s", c.Cores, c.Machine, c.Procs, plural(c.Procs)),
		Notes: []string{fmt.Sprintf("user %.1f s, system %.1f s", c.UserS, c.SystemS)},
	}
	if c.InProcess {
		row.Notes = append(row.Notes, "the server ran in this process: its CPU is included")
	}
	if c.PerCallUS > 0 {
		row.Notes = append(row.Notes, "per call: "+perCallText(c))
	}
	return row
}

// latencyCells lists the latency summary for its table.
func latencyCells(l Latency) []htmlCell {
	return []htmlCell{
		{"min", latencyText(l.Min)}, {"mean", latencyText(l.Mean)},
		{"p50", latencyText(l.P50)}, {"p90", latencyText(l.P90)},
		{"p99", latencyText(l.P99)}, {"p99.9", latencyText(l.P999)},
		{"max", latencyText(l.Max)},
	}
}

// pageTemplate is the page. Its script counts the charts that the browser
// laid out at a visible size (the HTML test reads the count).
var pageTemplate = htmltemplate.Must(htmltemplate.New("report").Parse(pageHTML))

// pageHTML is pageTemplate's text.
const pageHTML = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>loadgen: {{.R.Target}}</title>
<style>
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; color: #1d2330; background: #fff; margin: 0; }
main { max-width: 1000px; margin: 0 auto; padding: 24px 20px 48px; }
h1 { font-size: 24px; margin: 0 0 4px; }
h2 { font-size: 18px; margin: 28px 0 10px; }
.sub { color: #5b6477; margin: 0; overflow-wrap: anywhere; }
.box { border-radius: 6px; padding: 10px 16px; margin-top: 18px; }
.box h2 { margin: 4px 0; font-size: 16px; }
.box ul { margin: 4px 0; padding-left: 20px; }
.failed { background: #fdecec; border: 1px solid #e5a3a3; color: #8a1c1c; }
.warnings { background: #fff7e0; border: 1px solid #e8cf87; color: #6b5000; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 5px 10px; border-bottom: 1px solid #e6e8ee; vertical-align: top; }
.summary th { width: 190px; font-weight: 600; color: #39414f; }
.summary td { font-variant-numeric: tabular-nums; overflow-wrap: anywhere; }
.summary tr.bad td, .summary tr.bad th { color: #b42318; background: #fff4f3; }
.note { display: block; color: #5b6477; font-size: 13px; }
tr.bad .note { color: #b42318; }
.latency th, .latency td { text-align: right; font-variant-numeric: tabular-nums; }
.latency th { color: #39414f; font-weight: 600; }
.targets td, .targets th { font-variant-numeric: tabular-nums; }
.targets td:first-child { overflow-wrap: anywhere; }
.targets tr.bad td { color: #b42318; background: #fff4f3; }
figure.chart { margin: 18px 0; padding: 8px; border: 1px solid #e6e8ee; border-radius: 6px; }
figure.chart svg { display: block; width: 100%; height: auto; }
figure.chart figcaption { font-weight: 600; }
.nodata { color: #5b6477; font-style: italic; margin: 24px 0; text-align: center; }
</style>
</head>
<body>
<main>
<h1>loadgen report</h1>
<p class="sub">{{.R.Target}} · {{.R.Call}}</p>
{{- if .R.Failed}}
<section class="box failed"><h2>Failed thresholds</h2><ul>{{range .R.Failed}}<li>{{.}}</li>{{end}}</ul></section>
{{- end}}
{{- if .R.Warnings}}
<section class="box warnings"><h2>Warnings</h2><ul>{{range .R.Warnings}}<li>{{.}}</li>{{end}}</ul></section>
{{- end}}
<h2>Latency</h2>
<table class="latency"><tr>{{range .Latency}}<th>{{.Name}}</th>{{end}}</tr><tr>{{range .Latency}}<td>{{.Value}}</td>{{end}}</tr></table>
<h2>Summary</h2>
<table class="summary">
{{- range .Rows}}
<tr{{if .Bad}} class="bad"{{end}}><th>{{.Name}}</th><td>{{.Value}}{{range .Notes}}<span class="note">{{.}}</span>{{end}}</td></tr>
{{- end}}
</table>
{{- with .Targets}}
<h2>By target</h2>
<table class="targets">
<tr><th>target</th><th>connections</th><th>requests</th><th>responses</th><th>answers/s</th>{{range (index . 0).Latency}}<th>{{.Name}}</th>{{end}}<th>errors</th></tr>
{{- range .}}
<tr{{if .Bad}} class="bad"{{end}}><td>{{.Target}}</td><td>{{.Conns}}</td><td>{{.Requests}}</td><td>{{.Responses}}</td><td>{{.RPS}}</td>{{range .Latency}}<td>{{.Value}}</td>{{end}}<td>{{.Errors}}{{range .ErrorNotes}}<span class="note">{{.}}</span>{{end}}</td></tr>
{{- end}}
</table>
{{- end}}
<h2>Charts</h2>
{{- range .Charts}}
<figure class="chart">{{if .SVG}}{{.SVG}}{{else}}<figcaption>{{.Title}}</figcaption><p class="nodata">no data</p>{{end}}</figure>
{{- end}}
</main>
<script>
window.addEventListener("load", function () {
  var n = 0;
  document.querySelectorAll("figure.chart svg").forEach(function (svg) {
    var box = svg.getBoundingClientRect();
    if (box.width > 100 && box.height > 100) { n++; }
  });
  document.body.dataset.chartsVisible = String(n);
});
</script>
</body>
</html>
`
