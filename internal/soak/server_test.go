package soak

import (
	"context"
	"errors"
	"net"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/router"
	"github.com/mcpwire/mcpwire/transport"
)

// The kinds of message the soak sends, one method each. Every request
// carries its kind in its method and its id is a decimal number unique
// in the run; a notification carries its id as its one param.
const (
	kindOK      byte = iota // answers its own id as the result
	kindSlow                // sleeps slowFor, then answers as kindOK
	kindFail                // fails with -32602
	kindPanic               // panics: -32603
	kindOverrun             // waits for its context: HandlerTimeout answers -32012
	kindNote                // a notification: never answered
	kinds
)

var methods = [kinds]string{"ok", "slow", "fail", "panic", "overrun", "note"}

const (
	slowFor        = 3 * time.Millisecond
	handlerTimeout = 500 * time.Millisecond // far past a panic's recovery on a loaded machine under -race
)

// pick draws a kind with the soak's mix: 1% panics, 2% errors, 1%
// overruns, 1% slow handlers, 1% notifications, the rest plain calls.
func pick(n int) byte {
	switch {
	case n < 1:
		return kindPanic
	case n < 3:
		return kindFail
	case n < 4:
		return kindOverrun
	case n < 5:
		return kindSlow
	case n < 6:
		return kindNote
	}
	return kindOK
}

// soakServer is a transport.Server on loopback TCP whose handlers count
// their runs per id.
type soakServer struct {
	srv    *transport.Server
	addr   string
	runs   []atomic.Uint32 // runs[id]: handler runs for that id
	badIDs atomic.Int64    // handlers that could not read their id
	served chan error      // Serve's result
}

// startServer serves the soak's methods for ids in [0, ids).
func startServer(t testing.TB, ids int) *soakServer {
	t.Helper()
	s := &soakServer{runs: make([]atomic.Uint32, ids), served: make(chan error, 1)}
	r := router.New()
	reg := func(kind byte, f func(ctx context.Context, id []byte) (any, error)) {
		h := router.HandlerFunc(func(ctx context.Context, req *router.Request) (any, error) {
			id := req.ID
			if kind == kindNote {
				id = trimBrackets(req.Params)
			}
			s.ran(id)
			return f(ctx, id)
		})
		if err := r.Register(methods[kind], h, nil); err != nil {
			t.Fatal(err)
		}
	}
	echo := func(_ context.Context, id []byte) (any, error) { return codec.Raw(append([]byte(nil), id...)), nil }
	reg(kindOK, echo)
	reg(kindSlow, func(ctx context.Context, id []byte) (any, error) {
		time.Sleep(slowFor)
		return echo(ctx, id)
	})
	reg(kindFail, func(context.Context, []byte) (any, error) {
		return nil, codec.NewError(codec.CodeInvalidParams, "soak: refused")
	})
	reg(kindPanic, func(context.Context, []byte) (any, error) { panic("soak: injected panic") })
	reg(kindOverrun, func(ctx context.Context, _ []byte) (any, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	})
	reg(kindNote, func(context.Context, []byte) (any, error) { return nil, nil })

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.addr = ln.Addr().String()
	s.srv = transport.NewServer(&conn.Options{Router: r, HandlerTimeout: handlerTimeout})
	go func() { s.served <- s.srv.Serve(ln) }()
	return s
}

// dialTCP connects to the server over loopback TCP.
func (s *soakServer) dialTCP(deadline time.Time) (endpoint, error) {
	nc, err := net.DialTimeout("tcp", s.addr, time.Until(deadline))
	if err != nil {
		return nil, err
	}
	return tcpEnd{nc.(*net.TCPConn)}, nil
}

// dialPipes serves a new session over two OS pipes (ServeConn, as a
// stdio server is served) and returns the client's ends.
func (s *soakServer) dialPipes(time.Time) (endpoint, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	if _, err := s.srv.ServeConn(pipeEnd{r: inR, w: outW}); err != nil {
		inW.Close()
		outR.Close()
		return nil, err // ServeConn closed the server's ends
	}
	return pipeEnd{r: outR, w: inW}, nil
}

// ran counts a run of the handler for id.
func (s *soakServer) ran(id []byte) {
	n, ok := parseID(id)
	if !ok || n >= uint64(len(s.runs)) {
		s.badIDs.Add(1)
		return
	}
	s.runs[n].Add(1)
}

// stop shuts the server down and checks that Serve returned as it should.
func (s *soakServer) stop(t testing.TB) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := s.srv.Shutdown(ctx); err != nil {
		t.Errorf("shutdown: %v", err)
	}
	if err := <-s.served; !errors.Is(err, transport.ErrServerClosed) {
		t.Errorf("Serve returned %v, want ErrServerClosed", err)
	}
}

// parseID reads a decimal id without allocating.
func parseID(b []byte) (uint64, bool) {
	if len(b) == 0 || len(b) > 19 {
		return 0, false
	}
	var n uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
	}
	return n, true
}

// trimBrackets returns the inside of a one-element array params "[n]".
func trimBrackets(p []byte) []byte {
	if len(p) < 2 || p[0] != '[' || p[len(p)-1] != ']' {
		return nil
	}
	return p[1 : len(p)-1]
}
