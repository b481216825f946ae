package metrics_test

import (
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/mcpwire/mcpwire/metrics"
)

// RegisterRuntime adds the Go and process families beside a Collector's,
// and refuses to register them twice.
func TestRegisterRuntime_addsGoAndProcessFamilies(t *testing.T) {
	reg := prometheus.NewRegistry()
	if _, err := metrics.New(reg, nil); err != nil {
		t.Fatal(err)
	}
	if err := metrics.RegisterRuntime(reg); err != nil {
		t.Fatal(err)
	}
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, f := range families {
		have[f.GetName()] = true
	}
	for _, name := range []string{"go_goroutines", "go_threads", "go_memstats_heap_alloc_bytes", "go_gc_duration_seconds", "process_resident_memory_bytes", "process_cpu_seconds_total", "mcpwire_in_flight"} {
		if !have[name] {
			t.Errorf("no family %s", name)
		}
	}
	if n, err := testutil.GatherAndCount(reg, "go_goroutines"); err != nil || n != 1 {
		t.Errorf("go_goroutines: %d series, %v", n, err)
	}
	err = metrics.RegisterRuntime(reg)
	if err == nil || !strings.Contains(err.Error(), "duplicate") {
		t.Errorf("second RegisterRuntime: %v, want a duplicate registration error", err)
	}
}
