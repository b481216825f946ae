package conn

import (
	"context"
	"errors"
	"io"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/pool"
	"github.com/mcpwire/mcpwire/router"
)

// ErrClosed is returned by calls on a connection that has ended, and by
// pending calls when it ends.
var ErrClosed = errors.New("conn: connection closed")

// Conn is one JSON-RPC session over a byte stream. It is safe for
// concurrent use: any goroutine may Call, Notify, Shutdown or Close.
type Conn struct {
	opts   Options
	rwc    io.ReadWriteCloser
	framer codec.Framer
	scan   *codec.Scanner
	out    *writer
	bufs   codec.BufferPool // responses and frame copies
	arrays codec.BufferPool // batch responses
	limit  *pool.Limiter

	ctx    context.Context // handlers' parent: carries the connection
	cancel context.CancelFunc

	inflight inflightList   // async requests not yet answered
	workers  sync.WaitGroup // async tasks not yet finished
	calls    pendingCalls   // our outgoing calls awaiting responses

	overloaded *codec.Error   // -32000 with this connection's retry hint
	inlineReq  router.Request // the reader's request for inline handlers
	held       codec.Buffer   // the reader's output, held until it would block

	stopping     atomic.Bool   // read no more, start no work; set by stop only
	admitMu      sync.Mutex    // orders stop against the reader's workers.Add
	readDetached atomic.Bool   // Shutdown could not interrupt the reader
	readDone     chan struct{} // the read loop has returned
	done         chan struct{} // everything has ended
	closeOnce    sync.Once
	err          error // why it ended; written before done is closed
}

type ctxKey struct{}

// FromContext returns the connection serving a handler's context, or nil.
func FromContext(ctx context.Context) *Conn {
	c, _ := ctx.Value(ctxKey{}).(*Conn)
	return c
}

// New starts a session on rwc: it reads and serves requests until the
// stream ends, Shutdown or Close. The connection owns rwc and closes it.
func New(rwc io.ReadWriteCloser, opts *Options) *Conn {
	o := opts.withDefaults()
	limits := o.Limits.WithDefaults()
	c := &Conn{
		opts:     o,
		rwc:      rwc,
		framer:   codec.NewFramer(rwc, o.Framing, &limits),
		scan:     codec.NewScanner(&limits),
		out:      newWriter(rwc, o.Framing, defaultMaxPending),
		limit:    pool.NewLimiter(o.MaxInFlight),
		readDone: make(chan struct{}),
		done:     make(chan struct{}),
	}
	c.opts.Limits = &limits
	c.ctx, c.cancel = context.WithCancel(context.WithValue(o.Context, ctxKey{}, c))
	c.overloaded = overloadError(o.RetryAfter)
	c.inflight.init()
	c.calls.init()
	go c.readLoop()
	return c
}

// overloadError is the -32000 answer carrying data.retryAfterMs.
func overloadError(d time.Duration) *codec.Error {
	data := strconv.AppendInt([]byte(`{"retryAfterMs":`), d.Milliseconds(), 10)
	return codec.NewError(codec.CodeOverloaded, "Server overloaded").WithData(codec.Raw(append(data, '}')))
}

// Done is closed when the connection has ended and every handler returned.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Wait blocks until the connection has ended and returns why: nil for a
// clean end of stream, Shutdown or Close.
func (c *Conn) Wait() error {
	<-c.done
	return c.err
}

// Close ends the connection at once: reading stops, handlers' contexts are
// cancelled, pending calls fail with ErrClosed and the stream is closed.
// Responses of handlers still running are dropped. It waits for the end.
func (c *Conn) Close() error {
	c.terminate(nil)
	<-c.done
	return nil
}

// stop makes the connection start no more work and reports whether it was
// the first to. Once it returns, workers.Add is never called again, so
// waiting on workers is safe even if the reader is still running.
func (c *Conn) stop() bool {
	c.admitMu.Lock()
	defer c.admitMu.Unlock()
	return c.stopping.CompareAndSwap(false, true)
}

// admit counts one more task for the pool unless the connection is
// stopping. Reader only.
func (c *Conn) admit() bool {
	c.admitMu.Lock()
	defer c.admitMu.Unlock()
	if c.stopping.Load() {
		return false
	}
	c.workers.Add(1)
	return true
}

// terminate ends the connection once, recording why.
func (c *Conn) terminate(why error) {
	c.closeOnce.Do(func() {
		c.stop()
		c.out.fail(ErrClosed) // before cancel: no late response slips out
		c.cancel()
		_ = c.rwc.Close()
		go c.finish(why)
	})
}

// finish waits for the reader and the workers, then reports the end.
func (c *Conn) finish(why error) {
	if !c.readDetached.Load() {
		<-c.readDone
	}
	c.workers.Wait()
	c.calls.failAll(ErrClosed)
	c.err = why
	close(c.done)
	if c.opts.OnClose != nil {
		c.opts.OnClose(why)
	}
}
