package main

// The HTML report's charts, drawn as SVG by go-analyze/charts from the
// report's numbers. No text of the report (its target, its call) is given
// to the charts: their titles and labels are ours, and numbers.

import (
	htmltemplate "html/template"
	"math"
	"slices"
	"strconv"

	"github.com/go-analyze/charts"
)

// The size of each chart's drawing in SVG units; the page scales it to
// the width of its column.
const (
	chartWidth  = 960
	chartHeight = 360
)

// pointsPerDecade is how many points the distribution chart draws for
// each tenfold step of 1/(1-p): from 0 to 90%, from 90% to 99%, and so on.
// With maxDecades, it keeps the points far enough apart (over 40 units)
// for the library to centre each under its label.
const pointsPerDecade = 3

// maxDecades bounds the distribution chart at 99.999%, the highest
// percentile the run's distribution has below 100.
const maxDecades = 5

// latencyChart draws p50, p99 and the maximum latency of each interval
// on a log scale (as logLatency says), so that a p50 far below the
// maximum still shows; or returns "" when no interval had an answer.
func latencyChart(tl []Interval) (htmltemplate.HTML, error) {
	p50 := make([]float64, len(tl))
	p99 := make([]float64, len(tl))
	top := make([]float64, len(tl))
	answered := false
	for i, iv := range tl {
		if iv.Responses == 0 { // no latency to show: a gap, not a zero
			p50[i], p99[i], top[i] = math.NaN(), math.NaN(), math.NaN()
			continue
		}
		answered = true
		p50[i], p99[i], top[i] = iv.P50US, iv.P99US, iv.MaxUS
	}
	if !answered {
		return "", nil
	}
	series, lo, hi := logLatency(p50, p99, top)
	opt := charts.NewLineChartOptionWithData(series)
	opt.Title.Text = "Latency over time"
	opt.Legend.SeriesNames = []string{"p50", "p99", "max"}
	opt.XAxis.Labels = timeLabels(tl)
	opt.XAxis.Title = "seconds from the start"
	opt.XAxis.BoundaryGap = charts.Ptr(len(tl) <= sparseIntervals)
	opt.YAxis = []charts.YAxisOption{{
		Min: charts.Ptr(lo), Max: charts.Ptr(hi),
		LabelCount: int(hi-lo) + 1, PreferNiceIntervals: charts.Ptr(false),
		Title:          "log scale",
		ValueFormatter: func(v float64) string { return axisLatency(math.Pow(10, v)) },
	}}
	opt.Symbol.Shape = charts.SymbolNone
	opt.LineStrokeWidth = 2
	return renderSVG(func(p *charts.Painter) error { return p.LineChart(opt) })
}

// minLogUS is the lowest latency the log scale shows, in microseconds:
// lower ones (zero) are drawn at it.
const minLogUS = 1

// logLatency puts latencies (in microseconds; NaN for none) on a log
// scale: each becomes its log10, NaN the charts' gap. lo and hi are the
// whole decades at or below the lowest and at or above the highest value
// (hi > lo), the axis's ends, so that its labels fall on 1µs, 10µs,
// 100µs, 1ms…
func logLatency(series ...[]float64) (out [][]float64, lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	null := charts.GetNullValue()
	for _, s := range series {
		l := make([]float64, len(s))
		for i, us := range s {
			if math.IsNaN(us) {
				l[i] = null
				continue
			}
			l[i] = math.Log10(max(us, minLogUS))
			lo, hi = min(lo, l[i]), max(hi, l[i])
		}
		out = append(out, l)
	}
	if math.IsInf(lo, 1) { // no value at all
		return out, 0, 1
	}
	lo, hi = math.Floor(lo), math.Ceil(hi)
	if hi == lo {
		hi++
	}
	return out, lo, hi
}

// throughputChart draws the answers per second of each interval, or
// returns "" when there is no interval.
func throughputChart(tl []Interval) (htmltemplate.HTML, error) {
	if len(tl) == 0 {
		return "", nil
	}
	rps := make([]float64, len(tl))
	for i, iv := range tl {
		rps[i] = iv.RPS
	}
	opt := charts.NewLineChartOptionWithData([][]float64{rps})
	opt.Title.Text = "Throughput over time"
	opt.Legend.SeriesNames = []string{"answers/s"}
	opt.XAxis.Labels = timeLabels(tl)
	opt.XAxis.Title = "seconds from the start"
	opt.XAxis.BoundaryGap = charts.Ptr(len(tl) <= sparseIntervals)
	opt.YAxis = []charts.YAxisOption{{
		Min:            charts.Ptr(0.0),
		ValueFormatter: func(v float64) string { return thousands(int64(math.Round(v))) },
	}}
	opt.Symbol.Shape = charts.SymbolNone
	opt.LineStrokeWidth = 2
	opt.FillArea = charts.Ptr(true)
	return renderSVG(func(p *charts.Painter) error { return p.LineChart(opt) })
}

// distributionChart draws the latency against the percentile, or returns
// "" when the distribution is empty.
func distributionChart(ps []Percentile) (htmltemplate.HTML, error) {
	labels, us := percentilePoints(ps)
	if len(us) == 0 {
		return "", nil
	}
	opt := charts.NewLineChartOptionWithData([][]float64{us})
	opt.Title.Text = "Latency by percentile"
	opt.Legend.SeriesNames = []string{"latency"}
	opt.XAxis.Labels = labels
	opt.XAxis.LabelCount = len(labels)       // every label: most are empty
	opt.XAxis.BoundaryGap = charts.Ptr(true) // each label under its point
	opt.XAxis.Title = "percentile (log scale: each labelled step is ten times rarer)"
	opt.YAxis = []charts.YAxisOption{{Min: charts.Ptr(0.0), ValueFormatter: axisLatency}}
	opt.LineStrokeWidth = 2
	return renderSVG(func(p *charts.Painter) error { return p.LineChart(opt) })
}

// sparseIntervals is the most intervals whose points are drawn centred
// under their labels; past it the library draws them edge to edge (and
// labels only some), so the axis must say so too.
const sparseIntervals = 20

// renderSVG draws one chart and returns its SVG, safe to put in the page
// as it is: the library escapes the text it writes, and we give it none
// of the report's.
func renderSVG(draw func(*charts.Painter) error) (htmltemplate.HTML, error) {
	p := charts.NewPainter(charts.PainterOptions{
		OutputFormat: charts.ChartOutputSVG,
		Width:        chartWidth,
		Height:       chartHeight,
	})
	if err := draw(p); err != nil {
		return "", err
	}
	b, err := p.Bytes()
	if err != nil {
		return "", err
	}
	return htmltemplate.HTML(b), nil
}

// timeLabels labels each interval with its end in seconds: "1s",
// "14.5s", and to the millisecond where that tells it from the one
// before (a run's last interval can be a few milliseconds long: "4.002s").
func timeLabels(tl []Interval) []string {
	labels := make([]string, len(tl))
	for i, iv := range tl {
		labels[i] = secondsText(iv.TS, 10)
		if i > 0 && labels[i] == labels[i-1] {
			labels[i] = secondsText(iv.TS, 1000)
		}
	}
	return labels
}

// secondsText writes s rounded to 1/per of a second, without trailing
// zeros: "4s", "4.5s", "4.002s".
func secondsText(s, per float64) string {
	return strconv.FormatFloat(math.Round(s*per)/per, 'f', -1, 64) + "s"
}

// percentilePoints resamples a distribution on a log scale of 1/(1-p),
// where the high percentiles are told apart: pointsPerDecade points from
// 0 to 90%, as many from 90 to 99%, and so on up to the highest
// percentile below 100 that the distribution has, then its maximum. Only
// the decades (0%, 90%, 99%, 99.9%…) and the maximum are labelled; the
// other labels are empty. Latencies between the distribution's points are
// interpolated linearly.
func percentilePoints(ps []Percentile) (labels []string, us []float64) {
	ps = slices.Clone(ps)
	ps = slices.DeleteFunc(ps, func(p Percentile) bool {
		return math.IsNaN(p.Percentile) || math.IsNaN(p.US) || p.Percentile < 0 || p.Percentile > 100
	})
	if len(ps) == 0 {
		return nil, nil
	}
	slices.SortStableFunc(ps, func(a, b Percentile) int {
		switch {
		case a.Percentile < b.Percentile:
			return -1
		case a.Percentile > b.Percentile:
			return 1
		}
		return 0
	})
	top := 0.0 // the highest percentile below 100
	for _, p := range ps {
		if p.Percentile < 100 {
			top = p.Percentile
		}
	}
	// decades: tenfold steps of 1/(1-p) up to top (the epsilon keeps
	// 99.999 at 5, not 6, through rounding)
	decades := 1
	if top > 0 {
		d := int(math.Ceil(-math.Log10(1-top/100) - 1e-9))
		decades = min(max(d, 1), maxDecades)
	}
	for k := 0; k <= decades*pointsPerDecade; k++ {
		x := float64(k) / pointsPerDecade
		label := ""
		if k%pointsPerDecade == 0 {
			label = decadeLabel(k / pointsPerDecade)
		}
		labels = append(labels, label)
		us = append(us, latencyAt(ps, 100*(1-math.Pow(10, -x))))
	}
	if last := ps[len(ps)-1]; last.Percentile == 100 {
		// the maximum stands apart, after a gap: it is one answer, not
		// a part of the curve, and its label has room
		labels = append(labels, "", "max")
		us = append(us, charts.GetNullValue(), last.US)
	}
	return labels, us
}

// decadeLabel names the percentile 1-10^-d: "0%", "90%", "99%", "99.9%"…
func decadeLabel(d int) string {
	return strconv.FormatFloat(100-math.Pow(10, float64(2-d)), 'f', max(d-2, 0), 64) + "%"
}

// latencyAt reads the latency at percentile p from a sorted, non-empty
// distribution, interpolating linearly between its points and holding
// its ends beyond them.
func latencyAt(ps []Percentile, p float64) float64 {
	i, _ := slices.BinarySearchFunc(ps, p, func(e Percentile, p float64) int {
		switch {
		case e.Percentile < p:
			return -1
		case e.Percentile > p:
			return 1
		}
		return 0
	})
	switch {
	case i == 0:
		return ps[0].US
	case i == len(ps):
		return ps[len(ps)-1].US
	}
	a, b := ps[i-1], ps[i]
	if b.Percentile == a.Percentile {
		return b.US
	}
	return a.US + (b.US-a.US)*(p-a.Percentile)/(b.Percentile-a.Percentile)
}
