package demoserver

import (
	"context"
	"errors"
	"fmt"
	"io"
)

// Server is a demo server running in this process (Start). Its methods are
// safe for concurrent use.
type Server struct {
	url    string
	cancel context.CancelCauseFunc
	done   chan struct{} // closed when serve has returned
	err    error         // serve's, set before done is closed
}

// errClosed is the cause of the shutdown that Close asks for, as logged.
var errClosed = errors.New("closed by Server.Close")

// Start serves the demo server in this process as the command would with
// the flags in args (the same flags; -listen must be tcp://, unix:// or
// http://, port 0 picks a free one), logging to log (nil: discard), until
// Close. It returns once the server listens.
//
// A usage error (a flag unknown or malformed, a value out of range) is
// returned as an error, as is one of starting to serve (an address that
// cannot be bound). The process's signals are left alone: SIGINT and
// SIGTERM are the caller's business.
func Start(args []string, log io.Writer) (*Server, error) {
	_, cfg, err := parseFlags(args, io.Discard) // flag's errors say what flag would print
	if err != nil {
		return nil, fmt.Errorf("demoserver: %w", err)
	}
	if cfg.listen == "stdio" {
		return nil, errors.New("demoserver: Start serves a -listen address (tcp://, unix:// or http://), not stdio")
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	s := &Server{cancel: cancel, done: make(chan struct{})}
	listening := make(chan string, 1)
	go func() {
		defer close(s.done)
		s.err = serve(ctx, cfg, nil, nil, log, func(url string) { listening <- url })
	}()
	select {
	case s.url = <-listening:
		return s, nil
	case <-s.done:
		cancel(nil)
		if s.err == nil {
			s.err = errors.New("demoserver: stopped before it listened")
		}
		return nil, s.err
	}
}

// URL is the address it serves: tcp://127.0.0.1:PORT, unix://PATH, or for
// -listen http://… the base URL http://127.0.0.1:PORT (paths /mcp /rpc /ws
// /sse under it).
func (s *Server) URL() string { return s.url }

// Close shuts the server down as SIGTERM would (requests in flight finish
// within -shutdown-timeout) and waits for it; it returns what serving
// returned. Calling it again returns the same. Every goroutine of the
// server has ended when it returns but one: with fasthttp (over HTTP with
// -http-server fast, the default, or -fast-rpc), its idle-worker cleaner
// notices its server stopped only when its sleep of up to 10 s ends (a
// goleak check ignores
// "github.com/valyala/fasthttp.(*workerPool).Start.func2", as transport's
// tests do).
func (s *Server) Close() error {
	s.cancel(errClosed)
	<-s.done
	return s.err
}
