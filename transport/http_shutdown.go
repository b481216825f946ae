package transport

import (
	"context"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/conn"
)

// bodySessions are the sessions of the POSTs a handler is serving, for
// its Shutdown: http.Server.Shutdown waits for them but cannot answer
// them, and once its grace is over closing their connections would lose
// their answers.
type bodySessions struct {
	stopping atomic.Bool // read without the lock: set with closed
	held     atomic.Bool // read without the lock: set with release
	mu       sync.Mutex
	closed   bool
	release  func()         // lets the shared pool go (conn.Conn.HoldSharedPool); nil: not held
	serving  sync.WaitGroup // ServeHTTP calls between enter and leave
	live     sessions
	runs     sync.Pool // of *bodyRun (serveBody)
}

// shutdownWriteGrace is how long, past Shutdown's deadline, Shutdown waits
// for the POSTs it abandoned to write their answers.
const shutdownWriteGrace = time.Second

// enter counts a request in, unless Shutdown began: then it is refused.
func (b *bodySessions) enter() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return false
	}
	b.serving.Add(1)
	return true
}

// leave counts a request entered out.
func (b *bodySessions) leave() { b.serving.Done() }

// holdSharedPool keeps the pool of sessions without a pool of their own
// open from the first session that took it (c, not yet ended) until
// shutdown: each POST is a session alone, and a client posting one
// request after another would otherwise make and close that pool (an
// ants pool and its goroutines) each time.
func (b *bodySessions) holdSharedPool(c *conn.Conn) {
	if b.held.Load() {
		return
	}
	release := c.HoldSharedPool()
	if release == nil {
		return
	}
	b.mu.Lock()
	if b.closed || b.release != nil {
		b.mu.Unlock()
		release()
		return
	}
	b.release = release
	b.held.Store(true)
	b.mu.Unlock()
}

// track adds c to those Shutdown ends, unless Shutdown began.
func (b *bodySessions) track(c *conn.Conn) bool { return track(&b.live, c) == nil }

// forget removes c, whose body has been served.
func (b *bodySessions) forget(c *conn.Conn) { b.live.Remove(c, c) }

// shutdown refuses new requests, shuts the sessions being served down
// (conn.Conn.Shutdown: running requests are waited for until ctx is done,
// then answered -32004), and waits for the requests to have written their
// answers, for at most shutdownWriteGrace past ctx's deadline.
func (b *bodySessions) shutdown(ctx context.Context) error {
	b.mu.Lock()
	b.closed = true
	b.stopping.Store(true)
	release := b.release
	b.mu.Unlock()
	if release != nil { // the sessions still served hold the pool themselves
		defer release()
	}
	err := b.live.Shutdown(ctx)
	done := make(chan struct{})
	go func() {
		b.serving.Wait()
		close(done)
	}()
	select {
	case <-done:
		return err
	case <-ctx.Done():
	}
	t := time.NewTimer(shutdownWriteGrace)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	}
	if err == nil {
		err = ctx.Err()
	}
	return err
}

// Shutdown ends the handler gracefully, for a server shutting down: new
// requests are answered 503 with a JSON-RPC -32000 error, and those being
// served are waited for until ctx is done; those still running then are
// answered -32004 (abandoned by a shutdown: the call may have had effects)
// with HTTP status 503, and their handlers' contexts cancelled. It returns
// once every answer is written, or shortly after ctx's deadline. It also
// lets go of the shared pool the handler holds (see HTTPHandler): call it
// once the handler is done with, in tests too.
//
// Call it before http.Server.Shutdown's deadline makes the server close
// its connections (http.Server.Close), which would cut the answers off:
// run it beside Shutdown, or before Close.
func (h *HTTPHandler) Shutdown(ctx context.Context) error {
	return h.live.shutdown(ctx)
}

// msgShuttingDown is the message of the answer to a POST that comes in
// once Shutdown began.
const msgShuttingDown = "Service Unavailable: the server is shutting down"

var errShuttingDown = codec.NewError(codec.CodeOverloaded, msgShuttingDown)

// shuttingDown is the answer to a POST refused by Shutdown.
var shuttingDown = codec.AppendError(nil, nil, errShuttingDown)

// statusShuttingDown is shuttingDown's status.
var statusShuttingDown = httpStatus{Code: http.StatusServiceUnavailable, RetryAfter: -1}
