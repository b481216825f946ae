package metrics

import (
	"errors"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// RegisterRuntime registers client_golang's standard Go and process
// collectors on reg: the go_* families (go_goroutines, go_threads,
// go_memstats_*, go_gc_duration_seconds, go_info, …) and the process_*
// families (process_resident_memory_bytes, process_cpu_seconds_total,
// process_open_fds, …, on platforms that report them), under the names
// Prometheus users expect from any Go server. It returns the
// registration error of either collector, for example when reg already
// has them; a registry built with prometheus.NewRegistry has neither,
// while prometheus.DefaultRegisterer already holds both.
func RegisterRuntime(reg prometheus.Registerer) error {
	return errors.Join(
		reg.Register(collectors.NewGoCollector()),
		reg.Register(collectors.NewProcessCollector(collectors.ProcessCollectorOpts{})),
	)
}
