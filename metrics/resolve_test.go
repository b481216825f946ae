package metrics_test

import (
	"maps"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/metrics"
)

// A method's metrics resolved once (Collector.Method) count what reports
// by name count: the same series with the same values, the rejection
// counter and the "0" code included.
func TestCollector_methodCountsAsReportsByName(t *testing.T) {
	reports := func(answered func(codec.Code, time.Duration), refused func(codec.Code)) {
		answered(0, time.Millisecond)
		answered(0, 3*time.Millisecond)
		answered(codec.CodeInvalidParams, time.Millisecond)
		refused(codec.CodeOverloaded)
		refused(codec.CodeOverloaded)
	}
	gathered := func(resolve bool) map[string]float64 {
		reg := prometheus.NewRegistry()
		c, err := metrics.New(reg, nil)
		if err != nil {
			t.Fatal(err)
		}
		if resolve {
			m := c.Method("add")
			reports(m.Answered, m.Refused)
		} else {
			reports(func(code codec.Code, d time.Duration) { c.Answered("add", code, d) },
				func(code codec.Code) { c.Refused("add", code) })
		}
		return scrape(t, reg)
	}
	byName, resolved := gathered(false), gathered(true)
	if !maps.Equal(byName, resolved) {
		t.Errorf("resolved:\n%v\nby name:\n%v", resolved, byName)
	}
	for series, want := range map[string]float64{
		`mcpwire_requests_total{code="0",method="add"}`:        2,
		`mcpwire_requests_total{code="-32602",method="add"}`:   1,
		`mcpwire_requests_total{code="-32000",method="add"}`:   2,
		`mcpwire_rejected_total{method="add"}`:                 2,
		`mcpwire_request_duration_seconds_count{method="add"}`: 3,
		`mcpwire_request_duration_seconds_sum{method="add"}`:   0.005,
	} {
		if got := resolved[series]; got != want {
			t.Errorf("%s = %v, want %v", series, got, want)
		}
	}
}
