package client_test

import (
	"context"
	"sync"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/router"
)

// inProcess serves r to a client in the same process: each dial makes a
// conn.Pipe and a server session on its other end. stop closes the server
// sessions.
func inProcess(r *router.Router) (dial client.DialFunc, stop func()) {
	var mu sync.Mutex
	var servers []*conn.Conn
	dial = func(context.Context) (conn.Stream, error) {
		a, b := conn.Pipe()
		s := conn.NewStream(conn.NewMessageStream(a, nil), &conn.Options{Router: r})
		mu.Lock()
		servers = append(servers, s)
		mu.Unlock()
		return conn.NewMessageStream(b, nil), nil
	}
	return dial, func() {
		mu.Lock()
		defer mu.Unlock()
		for _, s := range servers {
			s.Close()
		}
	}
}
