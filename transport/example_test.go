package transport_test

import (
	"context"
	"errors"
	"fmt"
	"log"

	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/pool"
	"github.com/mcpwire/mcpwire/router"
	"github.com/mcpwire/mcpwire/transport"
)

// A server on loopback TCP and a client calling it. The README's embedding
// snippet is this function's body (a test keeps them the same).
func Example_embed() {
	ctx := context.Background()

	r := router.New()
	err := r.Register("subtract", router.Func(func(ctx context.Context, p struct {
		Minuend, Subtrahend float64
	}) (float64, error) {
		return p.Minuend - p.Subtrahend, nil
	}), nil)
	if err != nil {
		log.Fatal(err)
	}

	p, err := pool.New(nil) // bounded workers on ants/v2
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close(ctx)

	srv := transport.NewServer(&conn.Options{Router: r, Pool: p})
	ln, err := transport.Listen(ctx, "tcp://127.0.0.1:0") // port 0: any free port
	if err != nil {
		log.Fatal(err)
	}
	go func() {
		if err := srv.Serve(ln); !errors.Is(err, transport.ErrServerClosed) {
			log.Print(err)
		}
	}()
	defer srv.Shutdown(ctx) // drains requests in flight

	// A client is the same connection from the other side.
	c, err := transport.Dial(ctx, transport.URL(ln), nil)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	var diff float64
	if err := c.Call(ctx, "subtract", []int{42, 23}, &diff); err != nil {
		log.Fatal(err)
	}
	fmt.Println(diff)
	// Output: 19
}
