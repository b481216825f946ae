package transport

import (
	"context"
	"errors"
	"io"
	"net"
	"sync"
	"time"

	"github.com/mcpwire/mcpwire/conn"
)

// ErrServerClosed is returned by Serve after Shutdown or Close.
var ErrServerClosed = errors.New("transport: server closed")

// Server serves JSON-RPC connections accepted from listeners, all with the
// same options (router, pool, framing, limits). Safe for concurrent use.
type Server struct {
	opts conn.Options

	mu        sync.Mutex
	listeners map[net.Listener]struct{}
	conns     map[*conn.Conn]struct{}
	closed    bool
	wg        sync.WaitGroup // accept loops and per-connection watchers
}

// NewServer returns a server whose connections use opts (nil: defaults);
// opts is copied.
func NewServer(opts *conn.Options) *Server {
	s := &Server{listeners: map[net.Listener]struct{}{}, conns: map[*conn.Conn]struct{}{}}
	if opts != nil {
		s.opts = *opts
	}
	return s
}

// Serve accepts connections on ln until Shutdown or Close, serving each on
// its own conn.Conn. It always returns a non-nil error: ErrServerClosed
// after Shutdown or Close.
func (s *Server) Serve(ln net.Listener) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		ln.Close()
		return ErrServerClosed
	}
	s.listeners[ln] = struct{}{}
	s.wg.Add(1)
	s.mu.Unlock()
	defer s.wg.Done()

	var backoff time.Duration
	for {
		nc, err := ln.Accept()
		if err != nil {
			s.mu.Lock()
			closed := s.closed
			s.mu.Unlock()
			if closed {
				return ErrServerClosed
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
				time.Sleep(backoff)
				continue
			}
			return err
		}
		backoff = 0
		s.ServeConn(nc)
	}
}

// ServeConn serves one already open stream (a socket, a pipe, stdio) and
// returns its connection; the server tracks it until it ends. After
// Shutdown or Close the stream is closed at once and the connection
// returned has already ended.
func (s *Server) ServeConn(rwc io.ReadWriteCloser) *conn.Conn {
	c := conn.New(rwc, &s.opts)
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		c.Close()
		return c
	}
	s.conns[c] = struct{}{}
	s.wg.Add(1)
	s.mu.Unlock()
	go func() {
		defer s.wg.Done()
		<-c.Done()
		s.mu.Lock()
		delete(s.conns, c)
		s.mu.Unlock()
	}()
	return c
}

// Shutdown stops accepting, then shuts every connection down gracefully
// (see conn.Conn.Shutdown) in parallel until ctx is done.
func (s *Server) Shutdown(ctx context.Context) error {
	conns := s.stop()
	var wg sync.WaitGroup
	errs := make([]error, len(conns))
	for i, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = c.Shutdown(ctx)
		}()
	}
	wg.Wait()
	s.wg.Wait()
	return errors.Join(errs...)
}

// Close stops accepting and closes every connection at once.
func (s *Server) Close() error {
	for _, c := range s.stop() {
		c.Close()
	}
	s.wg.Wait()
	return nil
}

// stop marks the server closed, closes its listeners and returns the live
// connections.
func (s *Server) stop() []*conn.Conn {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	for ln := range s.listeners {
		ln.Close()
	}
	clear(s.listeners)
	conns := make([]*conn.Conn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	return conns
}
