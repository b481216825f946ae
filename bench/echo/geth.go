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

func newGeth() Server {
	srv := rpc.NewServer()
	if err := srv.RegisterName("test", gethService{}); err != nil {
		panic(err) // a constant service: cannot fail
	}
	return &gethServer{srv: srv}
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
