package demoserver

import (
	"strings"
	"testing"
	"time"
)

// TestDemoserver_metricsCountTheTraffic: -metrics 127.0.0.1:0 logs the
// URL it bound; after known traffic its /metrics shows every family with
// the values that traffic implies: requests by method and code, their
// latencies, handlers in flight while two sleep, the queue, a refusal
// (-max-inflight 2 under -overload reject), the cache's hit and miss, and
// the pool and the admission limit the server is built with.
func TestDemoserver_metricsCountTheTraffic(t *testing.T) {
	addr, metricsURL, _ := startMetered(t, "-overload", "reject", "-max-inflight", "2")
	if !strings.HasPrefix(metricsURL, "http://127.0.0.1:") || !strings.HasSuffix(metricsURL, "/metrics") || strings.HasSuffix(metricsURL, ":0/metrics") {
		t.Fatalf("metrics logged at %q", metricsURL)
	}
	p := dialPeer(t, addr)
	// A handler's slot is freed just after its answer is sent: a client
	// that sends as soon as it has read an answer may find it still held.
	// So each step waits until no slot is.
	idle := func() string {
		t.Helper()
		text, ok := eventually(t, metricsURL, 5*time.Second, func(text string) bool {
			v, _ := sample(text, "mcpwire_in_flight", "")
			return v == 0
		})
		if !ok {
			t.Fatalf("mcpwire_in_flight not back to 0 once everything was answered:\n%s", text)
		}
		return text
	}
	call := func(id, method, params string, code int) {
		t.Helper()
		idle()
		a, _ := p.call(id, method, params, 10*time.Second)
		if a == nil {
			t.FailNow()
		}
		if a.code() != code {
			t.Fatalf("%s %s: got %s, want code %d", method, params, a.raw, code)
		}
	}
	for _, id := range []string{"1", "2", "3"} {
		call(id, "sleep", `{"ms":0}`, 0)
	}
	call("4", "sleep", `{"ms":-1}`, -32602)
	call("5", "cached_sleep", `{"ms":0,"key":"m"}`, 0)
	call("6", "cached_sleep", `{"ms":0,"key":"m"}`, 0) // a hit
	call("7", "echo", `[1]`, 0)                        // inline

	// Three at once with room for two.
	idle()
	first, second, third := p.expect("8"), p.expect("9"), p.expect("10")
	p.send(request("8", "sleep", `{"ms":1000}`), request("9", "sleep", `{"ms":1000}`), request("10", "sleep", `{"ms":1000}`))
	if a := wait(t, third, 10*time.Second); a.code() != -32000 {
		t.Fatalf("the third sleep past -max-inflight 2: %s", a.raw)
	}
	during := scrape(t, metricsURL) // the first two still sleep
	for _, ch := range []<-chan *answer{first, second} {
		if a := wait(t, ch, 10*time.Second); a.code() != 0 {
			t.Fatalf("a sleep within -max-inflight 2: %s", a.raw)
		}
	}
	if v := mustSample(t, during, "mcpwire_in_flight", ""); v != 2 {
		t.Errorf("mcpwire_in_flight %v while two sleeps ran, want 2", v)
	}
	if v := mustSample(t, during, "mcpwire_concurrency_in_use", ""); v != 2 {
		t.Errorf("mcpwire_concurrency_in_use %v while two sleeps ran, want 2", v)
	}
	text := idle()
	workers := mustSample(t, text, "mcpwire_workers", "")
	for _, c := range []struct {
		name, labels string
		want         float64
	}{
		{"mcpwire_requests_total", `method="sleep",code="0"`, 5},
		{"mcpwire_requests_total", `method="sleep",code="-32602"`, 1},
		{"mcpwire_requests_total", `method="sleep",code="-32000"`, 1},
		{"mcpwire_requests_total", `method="cached_sleep",code="0"`, 2},
		{"mcpwire_requests_total", `method="echo",code="0"`, 1},
		{"mcpwire_request_duration_seconds_count", `method="sleep"`, 6}, // answered by the handler: not the refusal
		{"mcpwire_request_duration_seconds_count", `method="cached_sleep"`, 2},
		{"mcpwire_rejected_total", `method="sleep"`, 1},
		{"mcpwire_queue_depth", "", 0},
		{"mcpwire_cache_hits_total", "", 1},
		{"mcpwire_cache_misses_total", "", 1},
		{"mcpwire_cache_entries", "", 1},
		{"mcpwire_concurrency_in_use", "", 0},
		// The fixed admission limit: the pool's workers and its queue
		// (pool.DefaultQueuePerWorker = 16 per worker).
		{"mcpwire_concurrency_limit", "", 17 * workers},
	} {
		if got := mustSample(t, text, c.name, c.labels); got != c.want {
			t.Errorf("%s{%s} = %v, want %v", c.name, c.labels, got, c.want)
		}
	}
	// (mcpwire_workers_busy reads pool.Pool.Running, which counts idle workers
	// too until IdleTimeout: only its bounds are sure.)
	if busy := mustSample(t, text, "mcpwire_workers_busy", ""); workers <= 0 || busy < 0 || busy > workers {
		t.Errorf("mcpwire_workers %v, mcpwire_workers_busy %v", workers, busy)
	}
	if sum := mustSample(t, text, "mcpwire_request_duration_seconds_sum", `method="sleep"`); sum < 2 || sum > 30 {
		t.Errorf("the sleeps' latencies sum to %vs; two slept 1s", sum)
	}
	if le := mustSample(t, text, "mcpwire_request_duration_seconds_bucket", `method="sleep",le="0.25"`); le != 4 {
		t.Errorf("%v sleeps within 250ms, want 4 (all but the two of 1s)", le)
	}
}

// TestDemoserver_adaptiveLimitIsWatched: with -adaptive the admission
// limit is an adaptive one, starting at pool.DefaultInitialLimit.
func TestDemoserver_adaptiveLimitIsWatched(t *testing.T) {
	_, metricsURL, _ := startMetered(t, "-adaptive")
	text := scrape(t, metricsURL)
	if v := mustSample(t, text, "mcpwire_concurrency_limit", ""); v != 20 {
		t.Errorf("mcpwire_concurrency_limit %v under -adaptive, want its initial 20", v)
	}
}

// TestDemoserver_metricsServeGoAndProcess: the -metrics endpoint serves
// the standard Go and process metrics beside mcpwire's own.
func TestDemoserver_metricsServeGoAndProcess(t *testing.T) {
	_, metricsURL, _ := startMetered(t)
	text := scrape(t, metricsURL)
	if v := mustSample(t, text, "go_goroutines", ""); v < 1 {
		t.Errorf("go_goroutines %v", v)
	}
	if v := mustSample(t, text, "go_memstats_heap_alloc_bytes", ""); v <= 0 {
		t.Errorf("go_memstats_heap_alloc_bytes %v", v)
	}
	if v := mustSample(t, text, "process_resident_memory_bytes", ""); v <= 0 {
		t.Errorf("process_resident_memory_bytes %v", v)
	}
	mustSample(t, text, "process_cpu_seconds_total", "")
	mustSample(t, text, "mcpwire_in_flight", "")
	mustSample(t, text, "mcpwire_queue_depth", "")
}
