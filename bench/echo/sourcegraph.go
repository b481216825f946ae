package echo

import (
	"context"
	"encoding/json"
	"io"
	"log"

	"github.com/sourcegraph/jsonrpc2"
)

// sourcegraphServer runs a jsonrpc2.Conn per stream.
type sourcegraphServer struct {
	h jsonrpc2.Handler
	streams
}

func newSourcegraph() Server {
	return &sourcegraphServer{h: jsonrpc2.HandlerWithError(func(_ context.Context, _ *jsonrpc2.Conn, req *jsonrpc2.Request) (any, error) {
		var p []string
		if req.Params == nil || json.Unmarshal(*req.Params, &p) != nil {
			return nil, errNotOne
		}
		return echo(p)
	})}
}

func (s *sourcegraphServer) ServeConn(rwc io.ReadWriteCloser) {
	c := jsonrpc2.NewConn(context.Background(), jsonrpc2.NewPlainObjectStream(rwc), s.h, quiet)
	s.add(c, func() { <-c.DisconnectNotify() })
}

func (s *sourcegraphServer) Close() { s.closeAll() }

// quiet drops the library's log of protocol errors (a batch, which it
// does not support, is one), which would otherwise go to the standard
// logger.
var quiet = jsonrpc2.SetLogger(log.New(io.Discard, "", 0))
