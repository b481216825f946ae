package echo

import (
	"context"
	"io"

	"github.com/creachadair/jrpc2"
	"github.com/creachadair/jrpc2/channel"
	"github.com/creachadair/jrpc2/handler"
)

// jrpc2Server runs a jrpc2.Server per stream on channel.Line.
type jrpc2Server struct {
	mux handler.Map
	streams
}

func newJrpc2() Server {
	return &jrpc2Server{mux: handler.Map{Method: handler.New(func(_ context.Context, p []string) (string, error) {
		return echo(p)
	})}}
}

func (s *jrpc2Server) ServeConn(rwc io.ReadWriteCloser) {
	srv := jrpc2.NewServer(s.mux, nil)
	s.add(rwc, func() {
		srv.Start(channel.Line(rwc, rwc))
		_ = srv.Wait() // the stream's end, as an error
	})
}

func (s *jrpc2Server) Close() { s.closeAll() }
