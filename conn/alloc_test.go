//go:build !race

package conn_test

import (
	"bufio"
	"context"
	"net"
	"testing"

	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/pool"
	"github.com/mcpwire/mcpwire/router"
)

// roundTripAllocs measures allocations per echo request end to end: the
// client's write, everything the server does, and the client's read.
func roundTripAllocs(t *testing.T, opts *conn.Options) float64 {
	cli, srv := net.Pipe()
	c := conn.New(srv, opts)
	defer c.Close()
	defer cli.Close()
	req := echoRequest(7)
	br := bufio.NewReaderSize(cli, 64<<10)
	return testing.AllocsPerRun(2000, func() {
		if _, err := cli.Write(req); err != nil {
			t.Fatal(err)
		}
		line, err := br.ReadSlice('\n')
		if err != nil || !isEcho(line) {
			t.Fatalf("%q %v", line, err)
		}
	})
}

// The budget per echo request, inline or on the pool: one allocation, the
// handler boxing its codec.Raw result into the `any` it returns. Frames,
// buffers and the ants hand-off are pooled; a pooled request's task (its
// context too, so never recycled) comes from a slab of 32: one allocation
// per 32 requests, which AllocsPerRun's integer average does not count.
const (
	inlineEchoBudget = 1
	pooledEchoBudget = 1
)

// meters are the Options.Metrics every budget holds with: none, and the
// Prometheus Collector of package metrics.
func meters(t *testing.T) []struct {
	name string
	m    conn.Metrics
} {
	return []struct {
		name string
		m    conn.Metrics
	}{{"metrics=none", nil}, {"metrics=prometheus", prometheusMetrics(t)}}
}

func TestAllocs_echoRequestEndToEnd(t *testing.T) {
	p, err := pool.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(context.Background())
	for _, m := range meters(t) {
		t.Run(m.name, func(t *testing.T) {
			inline := roundTripAllocs(t, &conn.Options{Router: echoRouter(), Metrics: m.m})
			if inline > inlineEchoBudget {
				t.Errorf("inline echo: %.1f allocs per request, budget %d", inline, inlineEchoBudget)
			}
			pooled := roundTripAllocs(t, &conn.Options{Router: pooledEchoRouter(), Pool: p, Metrics: m.m})
			if pooled > pooledEchoBudget {
				t.Errorf("pooled echo: %.1f allocs per request, budget %d", pooled, pooledEchoBudget)
			}
			t.Logf("allocs per echo request: inline %.1f, pooled %.1f", inline, pooled)
		})
	}
}

// An interceptor's hit is answered with no allocation at all: no handler,
// no boxing, no hand-off.
func TestAllocs_interceptorHit(t *testing.T) {
	r := router.New()
	r.Register("echo", router.HandlerFunc(func(context.Context, *router.Request) (any, error) {
		t.Error("the handler ran on a hit")
		return nil, nil
	}), &router.MethodOptions{Intercept: cacheHit{[]byte(echoParams)}})
	for _, m := range meters(t) {
		t.Run(m.name, func(t *testing.T) {
			if n := roundTripAllocs(t, &conn.Options{Router: r, Pool: &countingPool{}, Metrics: m.m}); n != 0 {
				t.Errorf("interceptor hit: %.1f allocs per request, want 0", n)
			}
		})
	}
}
