package conn

import (
	"context"
	"errors"
	"io"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/pool"
)

// ErrClosed is returned by calls on a connection that has ended, and by
// pending calls when it ends.
var ErrClosed = errors.New("conn: connection closed")

// ErrNoStream is returned by calls on a session that has no stream to send
// them on (one made by NewStream with a nil Stream, served only through
// ServeBody).
var ErrNoStream = errors.New("conn: the session has no stream to send on")

// Conn is one JSON-RPC session. It is safe for concurrent use: any
// goroutine may Call, Notify, ServeBody, ServeBodySink, Cancel, Shutdown or
// Close.
type Conn struct {
	opts Options
	s    Stream // nil: a session served only through ServeBody
	// direct is s when it is an end of InProcess: calls go straight to
	// the peer session, not through out.
	direct *inProcessEnd
	out    *writer
	limit  *pool.Limiter
	// shared is defaultPool's pool, taken by the first hand-off of a
	// connection without Options.Pool (executor) and given back when the
	// connection has finished: a session whose handlers are all inline
	// (an HTTP POST's, often) never takes it.
	shared atomic.Pointer[pool.Pool]

	ctx    context.Context // handlers' parent: carries the connection
	cancel context.CancelFunc
	// ctxRelated is ctx's value of relatedKey (a WithSink's, if the
	// session was made under one), looked up once: reqCtx.Value.
	ctxRelated any

	inflight inflightList // pooled requests not yet answered
	queued   atomic.Int32 // pooled tasks not yet started (sendLater)
	// refuseBatch is SetBatches' switch (beside queued: no padding).
	refuseBatch atomic.Bool
	// saturated is the Pool's Saturated method, if it has one.
	saturated func() bool
	// submitCtx is the Pool, if it can stop waiting for room (submit).
	submitCtx contextSubmitter
	// obs is what Options.Metrics need, if set (metrics_reader.go).
	obs   *observer
	calls pendingCalls // our outgoing calls awaiting responses

	overloaded   *codec.Error // -32000 with this connection's retry hint
	shuttingDown *codec.Error // likewise, refused because it is stopping
	rd           reader       // the reading goroutine's own (read.go)

	lifecycle // lifecycle.go; last: see its tasks
}

type ctxKey struct{}

// FromContext returns the connection serving a handler's context, or nil.
func FromContext(ctx context.Context) *Conn {
	c, _ := ctx.Value(ctxKey{}).(*Conn)
	return c
}

// Peer returns the other end of the session as its transport described it
// (Options.Peer): for per-peer policies such as rate limits. It is the
// zero Peer when the session was started without one.
func (c *Conn) Peer() Peer { return c.opts.Peer }

// New starts a session on a byte stream framed by opts.Framing: it reads
// and serves requests until the stream ends, Shutdown or Close. The
// connection owns rwc and closes it.
func New(rwc io.ReadWriteCloser, opts *Options) *Conn {
	c := newConn(opts)
	c.start(newByteStream(rwc, c.opts.Framing, c.opts.Limits, c, c.opts.IdleTimeout))
	return c
}

// NewStream starts a session on s, a message-level stream (see Stream,
// NewMessageStream, Pipe). With a nil s the session reads nothing: it is
// served through ServeBody only, and its outgoing calls fail with
// ErrNoStream. The connection owns s and closes it.
func NewStream(s Stream, opts *Options) *Conn {
	c := newConn(opts)
	c.start(s)
	return c
}

func newConn(opts *Options) *Conn {
	o := opts.withDefaults()
	c := &Conn{
		opts:  o,
		limit: pool.NewLimiter(o.MaxInFlight),
	}
	c.ctx, c.cancel = context.WithCancel(context.WithValue(o.Context, ctxKey{}, c))
	c.ctxRelated = c.ctx.Value(relatedKey{})
	r := refusalsFor(o.retryAfter())
	c.overloaded, c.shuttingDown = r.overloaded, r.shuttingDown
	c.refuseBatch.Store(o.RefuseBatches)
	if s, ok := o.Pool.(interface{ Saturated() bool }); ok {
		c.saturated = s.Saturated
	}
	c.submitCtx, _ = o.Pool.(contextSubmitter)
	if o.Metrics != nil {
		c.obs = &observer{}
		c.obs.resolver, _ = o.Metrics.(MethodResolver)
	}
	c.calls.init(o.OnUnmatched)
	c.lifecycle.init()

	return c
}

func (c *Conn) start(s Stream) {
	c.s = s
	c.out = newWriter(s, defaultMaxPending, c.opts.WriteTimeout)
	if s == nil {
		c.readDone = closedChan // no reader
		return
	}
	c.out.lateFlush = func() { c.sent(c.out.flushLater()) }
	c.readDone = make(chan struct{})
	c.rd = reader{c: c, scan: codec.NewScanner(c.opts.Limits)}
	c.rd.scan.SetJSONRPC1(c.opts.JSONRPC1)
	go c.rd.loop()
	if e, ok := s.(*inProcessEnd); ok {
		c.direct = e
		e.attach(c) // the peer may post to us from now on
	}
}

// executor returns what runs the connection's non-inline handlers:
// Options.Pool, or the shared pool, taken on first use. Any goroutine.
func (c *Conn) executor() Executor {
	if c.opts.Pool != nil {
		return c.opts.Pool
	}
	if p := c.shared.Load(); p != nil {
		return p
	}
	p := defaultPool.Acquire()
	if !c.shared.CompareAndSwap(nil, p) { // another hand-off took it first
		defaultPool.Release(p)
		return c.shared.Load()
	}
	return p
}

// refusal is a -32000 answer for a request refused before it started,
// carrying data.retryAfterMs: a retry is safe.
func refusal(msg string, hint time.Duration) *codec.Error {
	data := strconv.AppendInt([]byte(`{"retryAfterMs":`), hint.Milliseconds(), 10)
	return codec.NewError(codec.CodeOverloaded, msg).WithData(codec.Raw(append(data, '}')))
}

// refusals are a session's two -32000 answers for one retry hint.
type refusals struct {
	hint                     time.Duration
	overloaded, shuttingDown *codec.Error
}

// lastRefusals are the refusals built last: sessions with the same hint
// share them (errors are never modified), so a session per HTTP POST does
// not build two errors it will almost never send.
var lastRefusals atomic.Pointer[refusals]

func refusalsFor(hint time.Duration) *refusals {
	if r := lastRefusals.Load(); r != nil && r.hint == hint {
		return r
	}
	r := &refusals{
		hint:         hint,
		overloaded:   refusal("Server overloaded", hint),
		shuttingDown: refusal("Server shutting down", hint),
	}
	lastRefusals.Store(r)
	return r
}

// SetBatches allows or refuses batches from now on: a refused batch is
// answered with one -32600 (MCP allows batches under one protocol version
// only, known once the session is initialised).
func (c *Conn) SetBatches(allow bool) { c.refuseBatch.Store(!allow) }

// errBatchRefused answers a batch on a session that refuses them.
var errBatchRefused = codec.NewError(codec.CodeInvalidRequest, "Invalid Request: batches are not accepted on this session")
