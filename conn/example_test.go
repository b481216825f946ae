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

// A session with no stream answers whole bodies, as an HTTP handler would
// give them: one answer per body, none for notifications.
func ExampleConn_ServeBody() {
	r := router.New()
	r.Register("subtract", router.Func(func(_ context.Context, p [2]float64) (float64, error) {
		return p[0] - p[1], nil
	}), nil)
	s := conn.NewStream(nil, &conn.Options{Router: r})
	defer s.Close()

	for _, body := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"subtract","params":[42,23]}`,
		`[{"jsonrpc":"2.0","id":2,"method":"subtract","params":[1,2]},{"jsonrpc":"2.0","method":"subtract","params":[0,0]}]`,
		`{"jsonrpc":"2.0","method":"subtract","params":[0,0]}`,
	} {
		answered := false
		s.ServeBody(context.Background(), []byte(body), func(msg []byte) {
			answered = true
			fmt.Println(string(msg))
		})
		if !answered {
			fmt.Println("(no answer)")
		}
	}
	// Output:
	// {"jsonrpc":"2.0","id":1,"result":19}
	// [{"jsonrpc":"2.0","id":2,"result":-1}]
	// (no answer)
}

// A client and a server in one process over an in-memory message pipe;
// the server cancels a request by its id, and the handler that gives up
// on its cancelled context is answered -32005.
func ExamplePipe() {
	started := make(chan struct{})
	r := router.New()
	r.Register("wait", router.HandlerFunc(func(ctx context.Context, _ *router.Request) (any, error) {
		close(started)
		<-ctx.Done()
		return nil, ctx.Err()
	}), nil)
	a, b := conn.Pipe()
	server := conn.NewStream(conn.NewMessageStream(a, nil), &conn.Options{Router: r})
	client := conn.NewStream(conn.NewMessageStream(b, nil), nil)
	defer server.Close()
	defer client.Close()

	go func() {
		<-started
		server.Cancel([]byte("1")) // the client's first call has id 1
	}()
	err := client.Call(context.Background(), "wait", nil, nil)
	fmt.Println(err)
	// Output:
	// jsonrpc error -32005: Request cancelled
}

// A server and its client in one process: each call is served on the
// caller's goroutine, still as JSON-RPC.
func ExampleInProcess() {
	r := router.New()
	r.Register("greet", router.Func(func(_ context.Context, p []string) (string, error) {
		return "hello, " + p[0], nil
	}), nil)
	a, b := conn.InProcess()
	server := conn.NewStream(a, &conn.Options{Router: r})
	client := conn.NewStream(b, nil)
	defer server.Close()
	defer client.Close()

	var s string
	err := client.Call(context.Background(), "greet", []string{"world"}, &s)
	fmt.Println(s, err)
	// Output: hello, world <nil>
}
