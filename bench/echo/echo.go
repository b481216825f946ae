package echo

import (
	"errors"
	"io"
	"net"
	"slices"
	"sync"
	"time"
)

// Method is the echo method's name on every server (go-ethereum names
// methods namespace_method).
const Method = "test_echo"

// Server serves the echo method on byte streams. Safe for concurrent use.
type Server interface {
	// ServeConn serves one stream until it ends or Close; it does not
	// block. The server owns rwc and closes it.
	ServeConn(rwc io.ReadWriteCloser)
	// Close ends every stream and waits until each is served no more.
	Close()
}

// Names are the implementations, mcpwire first.
var Names = []string{"mcpwire", "mcpwire-metrics", "jrpc2", "sourcegraph", "x-exp-jsonrpc2", "geth", "naive-stdjson", "naive-sonic"}

// NoBatches names the implementations without JSON-RPC batches and says
// what each does with one (TestEchoBatchRefusals checks it).
var NoBatches = map[string]string{
	"sourcegraph":    "closes the stream, answering nothing (it logs a protocol error)",
	"x-exp-jsonrpc2": "stops reading the stream, answering nothing (its reader fails to decode the array; the stream stays open)",
}

// makers builds a Server by name.
var makers = map[string]func() Server{
	"mcpwire":         newMcpwire,
	"mcpwire-metrics": newMcpwireMetrics,
	"jrpc2":           newJrpc2,
	"sourcegraph":     newSourcegraph,
	"x-exp-jsonrpc2":  newXExp,
	"geth":            newGeth,
	"naive-stdjson":   func() Server { return newNaive(stdJSON) },
	"naive-sonic":     func() Server { return newNaive(sonicJSON) },
}

// ErrUnknown is New's error for a name not in Names.
var ErrUnknown = errors.New("echo: unknown implementation")

// New returns the server named name, one of Names.
func New(name string) (Server, error) {
	mk, ok := makers[name]
	if !ok {
		return nil, ErrUnknown
	}
	return mk(), nil
}

// Serve accepts connections from ln and serves each with s until ln is
// closed; it returns the error that ended accepting.
func Serve(ln net.Listener, s Server) error {
	for {
		nc, err := ln.Accept()
		if err != nil {
			return err
		}
		s.ServeConn(nc)
	}
}

// streams tracks the open streams of a server and waits for their
// goroutines, for the servers whose library does not.
type streams struct {
	mu     sync.Mutex
	open   []io.Closer
	closed bool
	wg     sync.WaitGroup
}

// add records c and runs serve on a goroutine of its own; after Close it
// closes c at once instead.
func (s *streams) add(c io.Closer, serve func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		c.Close()
		return
	}
	s.open = append(s.open, c)
	s.wg.Go(serve)
}

// closeAll closes every stream and waits for their goroutines.
func (s *streams) closeAll() {
	s.mu.Lock()
	s.closed = true
	open := slices.Clone(s.open)
	s.mu.Unlock()
	for _, c := range open {
		c.Close()
	}
	s.wg.Wait()
}

// errNotOne is every server's answer to params that are not one string.
var errNotOne = errors.New("want params of one string")

// echo returns the one string of params.
func echo(params []string) (string, error) {
	if len(params) != 1 {
		return "", errNotOne
	}
	return params[0], nil
}

// deadlineConn gives a stream that has no write deadline (a pipe pair,
// stdio) the method go-ethereum's codec asks for.
type deadlineConn struct{ io.ReadWriteCloser }

// SetWriteDeadline does nothing.
func (deadlineConn) SetWriteDeadline(time.Time) error { return nil }
