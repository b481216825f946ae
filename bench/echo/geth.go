package echo

import (
	"io"

	"github.com/ethereum/go-ethereum/rpc"
)

// gethService is test_echo for go-ethereum's rpc.Server.
type gethService struct{}

// Echo is test_echo.
func (gethService) Echo(s string) string { return s }

// gethServer serves every stream with one rpc.Server.
type gethServer struct {
	srv *rpc.Server
	streams
}

func newGeth() Server { return &gethServer{srv: NewGethRPC()} }

// NewGethRPC returns go-ethereum's rpc.Server with Method registered, the
// library's defaults otherwise. It is also an http.Handler: JSON-RPC over
// HTTP POST at any path, as go-ethereum's HTTP endpoint serves it. Stop
// it when done.
func NewGethRPC() *rpc.Server {
	srv := rpc.NewServer()
	if err := srv.RegisterName("test", gethService{}); err != nil {
		panic(err) // a constant service: cannot fail
	}
	return srv
}

func (s *gethServer) ServeConn(rwc io.ReadWriteCloser) {
	c, ok := rwc.(rpc.Conn)
	if !ok {
		c = deadlineConn{rwc}
	}
	s.add(rwc, func() { s.srv.ServeCodec(rpc.NewCodec(c), 0) })
}

func (s *gethServer) Close() {
	s.closeAll()
	s.srv.Stop()
}
