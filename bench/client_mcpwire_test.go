package bench

import (
	"context"
	"errors"
	"net"
	"testing"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/router"
	"github.com/mcpwire/mcpwire/transport"
)

// mcpwireTCPServer serves test_echo with a transport.Server and default
// session options: each request runs on conn's default workers, its
// params decoded by router.Func.
func mcpwireTCPServer(tb testing.TB, ln net.Listener) func() {
	r := router.New()
	if err := r.Register(echoMethod, router.Func(func(_ context.Context, p []string) (string, error) {
		return firstOf(p)
	}), nil); err != nil {
		tb.Fatal(err)
	}
	s := transport.NewServer(&conn.Options{Router: r})
	served := make(chan error, 1)
	go func() { served <- s.Serve(ln) }()
	return func() {
		s.Close()
		if err := <-served; !errors.Is(err, transport.ErrServerClosed) {
			tb.Errorf("mcpwire server: %v", err)
		}
	}
}

// mcpwireTCPClient is client.Dial with its defaults: one session.
func mcpwireTCPClient(tb testing.TB, addr string) (caller, func()) {
	c, err := client.Dial(context.Background(), "tcp://"+addr, nil)
	if err != nil {
		tb.Fatal(err)
	}
	return func(ctx context.Context, msg string) (string, error) {
		var got string
		err := c.Call(ctx, echoMethod, []string{msg}, &got)
		return got, err
	}, func() { c.Close() }
}
