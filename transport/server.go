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

	live sessions

	mu        sync.Mutex
	listeners map[net.Listener]struct{}
	closed    bool
	quit      chan struct{}  // closed by stop
	slots     chan struct{}  // one per session served; made on first use
	wg        sync.WaitGroup // accept loops
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
		_, _ = s.serve(nc, peer) // a refused session is closed: go on accepting
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
	return s.serve(rwc, peer)
}

// serve binds and starts the session on rwc, holding a slot it frees when
// the session ends, or at once on an error (rwc is then closed).
func (s *Server) serve(rwc io.ReadWriteCloser, peer *conn.Peer) (*conn.Conn, error) {
	o, err := s.binder.Bind(context.Background(), peer)
	if err != nil {
		rwc.Close()
		<-s.slots
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
	if s.live.Closed() {
		rwc.Close()
		<-s.slots
		return nil, ErrServerClosed
	}
	opts.OnClose = forgetOnClose(&s.live, func() { <-s.slots }, opts.OnClose)
	c := conn.New(rwc, &opts)
	if track(&s.live, c) != nil { // Shutdown or Close began meanwhile
		c.Close() // its OnClose frees the slot
		return nil, ErrServerClosed
	}
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

// Len returns the number of sessions being served. A session that has
// ended is no longer counted by the time its OnClose runs.
func (s *Server) Len() int { return s.live.Len() }

// Sessions returns the sessions being served, as a snapshot taken when
// the iteration starts: a session may end meanwhile, and one may be closed
// from inside the loop.
func (s *Server) Sessions() iter.Seq[*conn.Conn] { return s.live.All() }

// Shutdown stops accepting, then shuts every session down gracefully (see
// conn.Conn.Shutdown) in parallel until ctx is done, and waits for them to
// end and for Serve to return, or for ctx to be done.
func (s *Server) Shutdown(ctx context.Context) error {
	s.stop()
	err := s.live.Shutdown(ctx)
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
		if err == nil {
			err = ctx.Err()
		}
	}
	return err
}

// Close stops accepting and closes every session at once, and waits for
// them to end and for Serve to return.
func (s *Server) Close() error {
	s.stop()
	err := s.live.Close()
	s.wg.Wait()
	return err
}

// stop marks the server closed and closes its listeners.
func (s *Server) stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		s.closed = true
		close(s.quit)
	}
	for ln := range s.listeners {
		ln.Close()
	}
	clear(s.listeners)
}
