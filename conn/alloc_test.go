//go:build !race

package conn_test

import (
	"bufio"
	"context"
	"net"
	"testing"

	"github.com/mcpwire/mcpwire/codec"
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

func TestAllocs_echoRequestEndToEnd(t *testing.T) {
	inline := roundTripAllocs(t, &conn.Options{Router: echoRouter()})
	if inline > inlineEchoBudget {
		t.Errorf("inline echo: %.1f allocs per request, budget %d", inline, inlineEchoBudget)
	}

	p, err := pool.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(context.Background())
	r := router.New()
	r.Register("echo", router.HandlerFunc(func(_ context.Context, req *router.Request) (any, error) {
		return codec.Raw(req.Params), nil
	}), nil)
	pooled := roundTripAllocs(t, &conn.Options{Router: r, Pool: p})
	if pooled > pooledEchoBudget {
		t.Errorf("pooled echo: %.1f allocs per request, budget %d", pooled, pooledEchoBudget)
	}
	t.Logf("allocs per echo request: inline %.1f, pooled %.1f", inline, pooled)
}

// An interceptor's hit is answered with no allocation at all: no handler,
// no boxing, no hand-off.
func TestAllocs_interceptorHit(t *testing.T) {
	r := router.New()
	r.Register("echo", router.HandlerFunc(func(context.Context, *router.Request) (any, error) {
		t.Error("the handler ran on a hit")
		return nil, nil
	}), &router.MethodOptions{Intercept: cacheHit{[]byte(echoParams)}})
	if n := roundTripAllocs(t, &conn.Options{Router: r, Pool: &countingPool{}}); n != 0 {
		t.Errorf("interceptor hit: %.1f allocs per request, want 0", n)
	}
}
