package conn_test

import (
	"context"
	"fmt"
	"net"

	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/router"
)

// Two connections on the ends of one pipe: each can serve and call.
func Example() {
	r := router.New()
	r.Register("sum", router.Func(func(_ context.Context, xs []float64) (float64, error) {
		var s float64
		for _, x := range xs {
			s += x
		}
		return s, nil
	}), nil)

	a, b := net.Pipe()
	server := conn.New(a, &conn.Options{Router: r})
	client := conn.New(b, nil)
	defer server.Close()
	defer client.Close()

	var total float64
	err := client.Call(context.Background(), "sum", []float64{1, 2, 4}, &total)
	fmt.Println(total, err)

	err = client.Call(context.Background(), "product", nil, nil)
	fmt.Println(err)
	// Output:
	// 7 <nil>
	// jsonrpc error -32601: Method not found
}
