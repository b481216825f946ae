package router_test

import (
	"context"
	"fmt"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/router"
)

// The subtract method of the JSON-RPC 2.0 specification, called with
// positional and with named params.
func Example_subtract() {
	type params struct {
		Minuend    int `json:"minuend"`
		Subtrahend int `json:"subtrahend"`
	}
	r := router.New()
	err := r.Register("subtract", router.Func(func(_ context.Context, p params) (int, error) {
		return p.Minuend - p.Subtrahend, nil
	}), &router.MethodOptions{Inline: true})
	if err != nil {
		panic(err)
	}

	e, _ := r.Lookup([]byte("subtract"))
	for _, p := range []string{
		`[42, 23]`,
		`{"subtrahend": 23, "minuend": 42}`,
		`[42, "23"]`,
		`{"minuend": 42, "subtrahend": [23]}`,
		`[1, 2, 3]`,
		`{"minuend": 42}`,
		`{"MINUEND": 42, "subtrahend": 23}`,
	} {
		res, err := e.Handler.Handle(context.Background(), &router.Request{
			Method: "subtract", ID: []byte("1"), Params: []byte(p),
		})
		if err != nil {
			fmt.Println(err.(*codec.Error).Message)
			continue
		}
		fmt.Println(res)
	}
	// Output:
	// 19
	// 19
	// invalid params: element 1 ("subtrahend"): cannot use string as int
	// invalid params: field "subtrahend": cannot use array as int
	// invalid params: too many elements: 3 given, at most 2 accepted
	// invalid params: field "subtrahend": missing required member
	// invalid params: field "minuend": missing required member
}

// Middleware wraps every method, registered before or after Use.
func ExampleRouter_Use() {
	r := router.New()
	r.Use(func(next router.Handler) router.Handler {
		return router.HandlerFunc(func(ctx context.Context, req *router.Request) (any, error) {
			fmt.Println("calling", req.Method)
			return next.Handle(ctx, req)
		})
	})
	_ = r.Register("ping", router.HandlerFunc(func(context.Context, *router.Request) (any, error) {
		return codec.Raw(`"pong"`), nil // sent verbatim, not re-encoded
	}), nil)

	e, _ := r.Lookup([]byte("ping"))
	res, _ := e.Handler.Handle(context.Background(), &router.Request{Method: "ping"})
	fmt.Printf("%s\n", res)

	fmt.Println(r.Register("rpc.discover", e.Handler, nil))
	// Output:
	// calling ping
	// "pong"
	// router: method names beginning with "rpc." are reserved
}
