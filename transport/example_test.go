package transport_test

import (
	"context"
	"fmt"

	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/pool"
	"github.com/mcpwire/mcpwire/router"
	"github.com/mcpwire/mcpwire/transport"
)

// A server on loopback TCP and a client calling it: the README's embedding
// example.
func Example() {
	ctx := context.Background()

	r := router.New()
	r.Register("subtract", router.Func(func(ctx context.Context, p struct {
		Minuend, Subtrahend float64
	}) (float64, error) {
		return p.Minuend - p.Subtrahend, nil
	}), nil)

	p, _ := pool.New(nil) // bounded workers on ants/v2
	defer p.Close(ctx)

	srv := transport.NewServer(&conn.Options{Router: r, Pool: p})
	ln, _ := transport.Listen(ctx, "tcp://127.0.0.1:0")
	go srv.Serve(ln)
	defer srv.Shutdown(ctx) // drains requests in flight

	c, _ := transport.Dial(ctx, transport.URL(ln), nil)
	defer c.Close()
	var diff float64
	err := c.Call(ctx, "subtract", []int{42, 23}, &diff)
	fmt.Println(diff, err)
	// Output: 19 <nil>
}
