package echo

import (
	"context"
	"io"
	"sync"

	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/router"
)

// mcpwireServer serves each stream with a conn.Conn.
type mcpwireServer struct {
	opts  *conn.Options
	mu    sync.Mutex
	conns []*conn.Conn
}

func newMcpwire() Server { return &mcpwireServer{opts: &conn.Options{Router: mcpwireRouter()}} }

// mcpwireRouter has the echo method, registered inline.
func mcpwireRouter() *router.Router {
	r := router.New()
	err := r.Register(Method, router.Func(func(_ context.Context, p []string) (string, error) {
		return echo(p)
	}), &router.MethodOptions{Inline: true})
	if err != nil {
		panic(err) // a constant name and handler: cannot fail
	}
	return r
}

func (s *mcpwireServer) ServeConn(rwc io.ReadWriteCloser) {
	c := conn.New(rwc, s.opts)
	s.mu.Lock()
	s.conns = append(s.conns, c)
	s.mu.Unlock()
}

func (s *mcpwireServer) Close() {
	s.mu.Lock()
	conns := s.conns
	s.conns = nil
	s.mu.Unlock()
	for _, c := range conns {
		c.Close()
		c.Wait()
	}
}
