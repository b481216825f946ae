// Package metrics exports what mcpwire sessions serve as Prometheus
// metrics: a Collector implements conn.Metrics, and reads the worker
// pool, the admission limit and the response cache when scraped. A server
// without Prometheus does not import this package, and its sessions pay a
// nil test per observation point.
//
// # Use
//
//	reg := prometheus.NewRegistry()
//	col, err := metrics.New(reg, nil)
//	…
//	opts := &conn.Options{Router: r, Pool: p, Metrics: col}
//	col.WatchWorkers(p)
//	metrics.RegisterRuntime(reg) // go_* and process_*, as Prometheus users expect
//	http.Handle("/metrics", metrics.Handler(reg))
//
// One Collector serves every session of a server (it is safe for
// concurrent use); a second Collector on
// the same registry is refused (its metric names are taken), unless every
// Collector there has Options.ConstLabels that tell it apart.
//
// # Metrics
//
// Requests, by method and code (the decimal JSON-RPC code, "0" for a
// result): mcpwire_requests_total, the latency histogram
// mcpwire_request_duration_seconds, mcpwire_rejected_total for -32000
// refusals. Methods are the router's registered names; "(unknown)" stands
// for every unregistered name a peer sends, "(invalid)" for messages that
// are no valid request, so a peer cannot grow the label set. A method
// counts at most 32 distinct codes apart; further ones share code
// "other". Handlers in flight: mcpwire_in_flight. JSON-RPC 1.0 requests
// and notifications (conn.Options.JSONRPC1), by method, also count in
// mcpwire_jsonrpc1_requests_total.
//
// Read when scraped, from what the Watch methods were given:
// mcpwire_queue_depth (WatchQueue), mcpwire_workers_busy and
// mcpwire_workers (WatchWorkers), mcpwire_concurrency_limit and
// mcpwire_concurrency_in_use (WatchLimit), mcpwire_cache_hits_total,
// mcpwire_cache_misses_total, mcpwire_cache_evictions_total,
// mcpwire_cache_bytes and mcpwire_cache_entries (WatchCache).
//
// A Collector registers only the mcpwire_* families. RegisterRuntime adds
// client_golang's standard Go and process collectors (go_goroutines,
// go_memstats_*, process_resident_memory_bytes, …) to a registry of the
// server's own; prometheus.DefaultRegisterer holds them already.
//
// # Cost
//
// A request costs no allocation and a few atomic additions (its code's
// counter, its latency's bucket, the latency sum); a session resolves a
// method's metrics once, and the answers its reader makes itself it
// tallies with plain additions and reports when it sends them, a few
// atomic additions per batch of answers;
// mcpwire_in_flight is one atomic addition per hand-off and per return.
package metrics
