package transport

import (
	"context"
	"errors"
	"io"
	"iter"
	"net"
	"sync"
	"time"

	"github.com/mcpwire/mcpwire/conn"
)

// Errors of Server.
var (
	// ErrServerClosed is returned by Serve and ServeConn after Shutdown or
	// Close.
	ErrServerClosed = errors.New("transport: server closed")
	// ErrNilListener is returned by Serve(nil).
	ErrNilListener = errors.New("transport: Serve with a nil listener")
	// ErrTooManyConns is returned by ServeConn when MaxConns sessions are
	// being served.
	ErrTooManyConns = errors.New("transport: too many connections")
)

// Defaults of Server.
const (
	DefaultMaxConns    = 10_000
	DefaultIdleTimeout = 10 * time.Minute
)

// Server serves JSON-RPC sessions accepted from listeners, each with the
// options its Binder chooses. Safe for concurrent use.
type Server struct {
	// MaxConns bounds the sessions served at once (default 10,000). At the
	// bound the server stops accepting until a session ends: new peers
	// wait in the listen backlog. Set it before Serve.
	MaxConns int
	// IdleTimeout closes a session on a socket that receives nothing for
	// that long while none of its requests is in flight (default 10
	// minutes; negative: never), unless its Binder sets one. Set it before
	// Serve.
	IdleTimeout time.Duration

	binder conn.Binder

	mu        sync.Mutex
	listeners map[net.Listener]struct{}
	conns     map[*conn.Conn]struct{}
	closed    bool
	quit      chan struct{}  // closed by stop
	slots     chan struct{}  // one per session served; made on first use
	wg        sync.WaitGroup // accept loops and per-connection watchers
}

// NewServer returns a server whose sessions take their options from b:
// an *conn.Options gives every session the same ones (nil: defaults).
func NewServer(b conn.Binder) *Server {
	if o, ok := b.(*conn.Options); ok && o == nil {
		b = new(conn.Options)
	}
	return &Server{
		binder:    b,
		listeners: map[net.Listener]struct{}{},
		conns:     map[*conn.Conn]struct{}{},
		quit:      make(chan struct{}),
	}
}

// Serve accepts connections on ln until Shutdown or Close, serving each as
// its own session. It always returns a non-nil error: ErrServerClosed
// after Shutdown or Close, ErrNilListener for a nil ln.
func (s *Server) Serve(ln net.Listener) error {
	if ln == nil {
		return ErrNilListener
	}
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
		// A slot first: at MaxConns, stop accepting.
		select {
		case s.slotsChan() <- struct{}{}:
		case <-s.quit:
			return ErrServerClosed
		}
		nc, err := ln.Accept()
		if err != nil {
			<-s.slots
			if s.isClosed() {
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
		peer := &conn.Peer{Transport: ln.Addr().Network(), Addr: nc.RemoteAddr().String()}
		if _, err := s.serve(nc, peer); err != nil {
			<-s.slots
		}
	}
}

// ServeConn serves one already open stream (a socket, a pipe, stdio) as a
// session and returns it; the server tracks it until it ends. It fails,
// closing rwc, after Shutdown or Close, at MaxConns, or when the Binder
// refuses the session.
func (s *Server) ServeConn(rwc io.ReadWriteCloser) (*conn.Conn, error) {
	select {
	case s.slotsChan() <- struct{}{}:
	default:
		rwc.Close()
		return nil, ErrTooManyConns
	}
	peer := &conn.Peer{Transport: "stream"}
	if nc, ok := rwc.(net.Conn); ok {
		peer = &conn.Peer{Transport: nc.LocalAddr().Network(), Addr: nc.RemoteAddr().String()}
	} else if _, ok := rwc.(*Stdio); ok {
		peer.Transport = "stdio"
	}
	c, err := s.serve(rwc, peer)
	if err != nil {
		<-s.slots
	}
	return c, err
}

// serve binds and starts the session on rwc, holding a slot it frees when
// the session ends. On an error the caller frees the slot; rwc is closed.
func (s *Server) serve(rwc io.ReadWriteCloser, peer *conn.Peer) (*conn.Conn, error) {
	o, err := s.binder.Bind(context.Background(), peer)
	if err != nil {
		rwc.Close()
		return nil, err
	}
	opts := conn.Options{}
	if o != nil {
		opts = *o
	}
	opts.Peer = *peer
	if opts.IdleTimeout == 0 {
		opts.IdleTimeout = s.IdleTimeout
		if opts.IdleTimeout == 0 {
			opts.IdleTimeout = DefaultIdleTimeout
		}
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		rwc.Close()
		return nil, ErrServerClosed
	}
	c := conn.New(rwc, &opts)
	s.conns[c] = struct{}{}
	s.wg.Add(1)
	s.mu.Unlock()
	go func() {
		defer s.wg.Done()
		<-c.Done()
		s.mu.Lock()
		delete(s.conns, c)
		s.mu.Unlock()
		<-s.slots
	}()
	return c, nil
}

// slotsChan returns the semaphore of MaxConns, made on first use so that
// MaxConns may be set after NewServer.
func (s *Server) slotsChan() chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.slots == nil {
		n := s.MaxConns
		if n <= 0 {
			n = DefaultMaxConns
		}
		s.slots = make(chan struct{}, n)
	}
	return s.slots
}

func (s *Server) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

// Len returns the number of sessions being served.
func (s *Server) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns)
}

// Sessions returns the sessions being served, as a snapshot taken when
// the iteration starts: a session may end meanwhile, and one may be closed
// from inside the loop.
func (s *Server) Sessions() iter.Seq[*conn.Conn] {
	return func(yield func(*conn.Conn) bool) {
		for _, c := range s.snapshot() {
			if !yield(c) {
				return
			}
		}
	}
}

func (s *Server) snapshot() []*conn.Conn {
	s.mu.Lock()
	defer s.mu.Unlock()
	conns := make([]*conn.Conn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	return conns
}

// Shutdown stops accepting, then shuts every session down gracefully (see
// conn.Conn.Shutdown) in parallel until ctx is done.
func (s *Server) Shutdown(ctx context.Context) error {
	errs := shutdownAll(ctx, s.stop())
	waited := make(chan struct{})
	go func() {
		s.wg.Wait()
		close(waited)
	}()
	select {
	case <-waited:
	case <-ctx.Done():
		// Handlers that ignore their context still run; their sessions end
		// when they return.
		errs = append(errs, ctx.Err())
	}
	return errors.Join(errs...)
}

// shutdownAll shuts every session of conns down in parallel until ctx is
// done, and returns their errors.
func shutdownAll(ctx context.Context, conns []*conn.Conn) []error {
	errs := make([]error, len(conns))
	var wg sync.WaitGroup
	for i, c := range conns {
		wg.Go(func() { errs[i] = c.Shutdown(ctx) })
	}
	wg.Wait()
	return errs
}

// Close stops accepting and closes every session at once.
func (s *Server) Close() error {
	for _, c := range s.stop() {
		c.Close()
	}
	s.wg.Wait()
	return nil
}

// stop marks the server closed, closes its listeners and returns the live
// sessions.
func (s *Server) stop() []*conn.Conn {
	s.mu.Lock()
	if !s.closed {
		s.closed = true
		close(s.quit)
	}
	for ln := range s.listeners {
		ln.Close()
	}
	clear(s.listeners)
	s.mu.Unlock()
	return s.snapshot()
}
