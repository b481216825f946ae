package client_test

import (
	"context"
	"fmt"
	"time"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/router"
)

// A client of a server in the same process (client.Dial does the same
// over TCP or a Unix socket): a call, a call of a method the server does
// not have, and a batch whose answers come back matched to their
// requests, each with its own result or error.
func Example() {
	r := router.New()
	r.Register("add", router.Func(func(_ context.Context, p struct{ X, Y float64 }) (float64, error) {
		return p.X + p.Y, nil
	}), nil)
	dial, stop := inProcess(r)
	defer stop()
	c := client.New(dial, &client.Options{
		Timeout:    5 * time.Second, // for calls whose context has no deadline
		Idempotent: []string{"add"}, // retried when the server is overloaded
	})
	defer c.Close()
	ctx := context.Background()

	var sum float64
	err := c.Call(ctx, "add", map[string]float64{"X": 3, "Y": 4}, &sum)
	fmt.Println(sum, err)

	err = c.Call(ctx, "multiply", map[string]float64{"X": 3, "Y": 4}, nil)
	fmt.Println(err)

	resps, err := c.Batch(ctx, []client.Request{
		{Method: "add", Params: map[string]float64{"X": 10, "Y": 20}},
		{Method: "add", Params: map[string]float64{"X": 0.5}},
		{Method: "multiply"},
	})
	for _, resp := range resps {
		var v float64
		fmt.Println(resp.Decode(&v), v)
	}
	fmt.Println(err)
	// Output:
	// 7 <nil>
	// jsonrpc error -32601: Method not found
	// <nil> 30
	// jsonrpc error -32602: invalid params: field "Y": missing required member 0
	// jsonrpc error -32601: Method not found 0
	// <nil>
}
