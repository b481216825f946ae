package metrics_test

import (
	"bufio"
	"context"
	"fmt"
	"net/http/httptest"
	"strings"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/metrics"
	"github.com/mcpwire/mcpwire/pool"
	"github.com/mcpwire/mcpwire/router"
)

// A server's sessions report to one Collector, which also reads the worker
// pool and the admission limit when scraped; Handler serves /metrics.
func Example() {
	reg := prometheus.NewRegistry()
	col, err := metrics.New(reg, nil)
	if err != nil {
		panic(err)
	}
	workers, err := pool.New(&pool.Options{Workers: 16})
	if err != nil {
		panic(err)
	}
	defer workers.Close(context.Background())
	admission := pool.NewLimiter(64) // shared by every session
	col.WatchWorkers(workers)
	col.WatchLimit(admission.Cap, admission.InUse)

	r := router.New()
	r.Register("ping", router.HandlerFunc(func(context.Context, *router.Request) (any, error) {
		return codec.Raw(`"pong"`), nil
	}), nil)
	a, b := conn.Pipe()
	server := conn.NewStream(conn.NewMessageStream(a, nil), &conn.Options{
		Router: r, Pool: workers, Admission: admission, Metrics: col,
	})
	client := conn.NewStream(conn.NewMessageStream(b, nil), nil)
	defer server.Close()
	defer client.Close()
	ctx := context.Background()
	client.Call(ctx, "ping", nil, nil)
	client.Call(ctx, "ping", nil, nil)
	client.Call(ctx, "no such method", nil, nil)

	// What a scraper of /metrics reads (some of it).
	w := httptest.NewRecorder()
	metrics.Handler(reg).ServeHTTP(w, httptest.NewRequest("GET", "/metrics", nil))
	sc := bufio.NewScanner(w.Body)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "mcpwire_requests_total") || strings.HasPrefix(line, "mcpwire_concurrency_limit") ||
			strings.HasPrefix(line, "mcpwire_workers ") {
			fmt.Println(line)
		}
	}
	// Output:
	// mcpwire_concurrency_limit 64
	// mcpwire_requests_total{code="-32601",method="(unknown)"} 1
	// mcpwire_requests_total{code="0",method="ping"} 2
	// mcpwire_workers 16
}

// A registry of the server's own starts empty: RegisterRuntime adds the
// Go and process metrics every Prometheus user looks for.
func ExampleRegisterRuntime() {
	reg := prometheus.NewRegistry()
	if err := metrics.RegisterRuntime(reg); err != nil {
		panic(err)
	}
	families, err := reg.Gather()
	if err != nil {
		panic(err)
	}
	for _, f := range families {
		switch name := f.GetName(); name {
		case "go_goroutines", "go_memstats_heap_alloc_bytes", "process_resident_memory_bytes":
			fmt.Println(name)
		}
	}
	// Output:
	// go_goroutines
	// go_memstats_heap_alloc_bytes
	// process_resident_memory_bytes
}
