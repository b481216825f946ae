package metrics_test

import (
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

// scrape gathers g into one value per series, keyed by the series in the
// text format's spelling with labels sorted: `name{a="x",b="y"}`. A
// histogram gives name_count and name_sum.
func scrape(t *testing.T, g prometheus.Gatherer) map[string]float64 {
	t.Helper()
	families, err := g.Gather()
	if err != nil {
		t.Fatalf("Gather: %v", err)
	}
	out := map[string]float64{}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			var labels []string
			for _, l := range m.GetLabel() { // sorted by name
				labels = append(labels, l.GetName()+`="`+l.GetValue()+`"`)
			}
			suffix := ""
			if len(labels) > 0 {
				suffix = "{" + strings.Join(labels, ",") + "}"
			}
			name := f.GetName()
			switch {
			case m.Counter != nil:
				out[name+suffix] = m.GetCounter().GetValue()
			case m.Gauge != nil:
				out[name+suffix] = m.GetGauge().GetValue()
			case m.Histogram != nil:
				out[name+"_count"+suffix] = float64(m.GetHistogram().GetSampleCount())
				out[name+"_sum"+suffix] = m.GetHistogram().GetSampleSum()
			}
		}
	}
	return out
}

// only keeps the series of s whose name begins with prefix.
func only(s map[string]float64, prefix string) map[string]float64 {
	out := map[string]float64{}
	for k, v := range s {
		if strings.HasPrefix(k, prefix) {
			out[k] = v
		}
	}
	return out
}
