package conn

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/pool"
	"github.com/mcpwire/mcpwire/router"
)

// Executor runs handlers off the reading goroutine. *pool.Pool is the one
// the project provides; a test may count hand-offs with its own. An
// Executor that also has RetryAfter() time.Duration sets the retry hint of
// the connection's -32000 answers; one that also has Saturated() bool
// reports when every worker is busy, so that tasks it has queued will not
// start soon (answers are then never held back for them: see sendLater).
type Executor interface {
	Submit(t Task) error
}

// Task is what an Executor runs: pool.Task, named here so that executors
// outside pool's importers (mcp's) can be written.
type Task = pool.Task

// CancelPolicy says whether a request cancelled by Conn.Cancel is still
// answered.
type CancelPolicy uint8

const (
	// CancelAnswer cancels the handler's context and still sends whatever
	// the handler returns (typically an error saying it was cancelled).
	CancelAnswer CancelPolicy = iota
	// CancelSilent cancels the handler's context and sends no response at
	// all, as MCP's notifications/cancelled requires.
	CancelSilent
)

// defaultPool runs the non-inline handlers of every connection without
// Options.Pool: unbounded (MaxInFlight and Admission bound the work), so
// handlers that block never hold the others back. Its workers (ants')
// live on after a request, for sharedIdle, waiting for the next: their
// stacks, grown by sonic and by the handlers, stay grown, where a
// goroutine per request would grow and copy a new stack every time (on a
// batch of 100 cheap calls, more than half the time). It is made by its
// first user and closed by the last one's end; a server that serves each
// request as a session of its own keeps it open (Conn.HoldSharedPool), so
// that such sessions, one after another, do not make and close one each.
var defaultPool = pool.NewShared(&pool.Options{Workers: pool.Unbounded, IdleTimeout: sharedIdle})

// sharedIdle is how long a worker of defaultPool waits for a task before
// it exits.
const sharedIdle = 2 * time.Second

// Default values of Options.
const (
	DefaultMaxInFlight  = 1024
	DefaultWriteTimeout = 30 * time.Second
	defaultMaxPending   = 4 << 20 // pending output before producers block
)

// Options configure a connection. A nil *Options gives the defaults; New
// copies the value, so later changes have no effect. An *Options is also a
// Binder that gives every session these options.
type Options struct {
	// Framing of both directions of a byte stream (nil: codec.Newline).
	// Streams made by NewStream bring their own.
	Framing codec.Framing
	// Limits bound frames, depth and batches (nil: codec defaults).
	Limits *codec.Limits
	// Router serves the peer's requests and notifications. Nil serves
	// nothing: every request is answered -32601.
	Router *router.Router
	// Pool runs non-inline handlers. Nil runs them on a pool.Pool with
	// no bound on workers (pool.Unbounded), shared by every connection
	// without a Pool and bounded by MaxInFlight and Admission alone: a
	// handler never waits for another to finish, and idle workers wait
	// 2 to 4 s for more before they exit, or until the last user of the
	// pool ends (a connection, or a Conn.HoldSharedPool). The pool is
	// made, with its goroutines, by its first user (in a testing/synctest
	// bubble, they belong to it), and none is left once every user has
	// ended.
	Pool Executor
	// MaxInFlight bounds requests running at once on this connection
	// (default 1024).
	MaxInFlight int
	// Admission, if set, is asked too before a handler starts, after the
	// connection's own MaxInFlight: a limit shared by every session of a
	// server, fed the latency of each finished request.
	Admission pool.Admission
	// Overload chooses between pool.Block (default: stop reading until a
	// request finishes) and pool.Reject (answer -32000 with
	// data.retryAfterMs at once) when MaxInFlight or Admission is full.
	// Under Block the reader still refuses rather than waits while this
	// connection's own outgoing calls are unanswered: their responses
	// can only arrive through it. So it does when the Pool's queue is
	// full, whatever this option says, with a Pool that can stop waiting
	// (SubmitContext: *pool.Pool has it): it first sends the answers it
	// holds, then waits for room while no call of this connection is
	// unanswered, and refuses the request -32000 as soon as one is. An
	// Executor without SubmitContext is waited for as it says.
	Overload pool.Overload
	// HandlerTimeout, when positive, bounds each pooled handler: a handler
	// still running then has its context cancelled and its request
	// answered -32012. It costs a timer per request.
	HandlerTimeout time.Duration
	// Cancel says whether a request cancelled by Conn.Cancel is still
	// answered (default CancelAnswer).
	Cancel CancelPolicy
	// RefuseBatches makes the session answer every batch with -32600
	// (SetBatches changes it later).
	RefuseBatches bool
	// JSONRPC1 makes the session accept JSON-RPC 1.0 objects beside 2.0
	// ones on the same stream (off: they are refused -32600, as 2.0
	// requires). An object without a jsonrpc member, or with
	// "jsonrpc":"1.0", is then judged by the 1.0 rules (codec.Message's
	// JSONRPC1, codec's jsonrpc1.go): a request has params an array and
	// an id, "id": null makes it a notification; params that are not an
	// array, or hold a class hint (__jsonclass__), are refused -32600.
	// Each message is answered in its own version: a 1.0 answer has no
	// jsonrpc member and carries both result and error, the one not set
	// null, the id echoed byte for byte. Handlers, interceptors,
	// middleware, admission and Metrics serve a 1.0 request as any other
	// (a Metrics that is a JSONRPC1Metrics counts them apart too).
	// Batches stay 2.0 only. On a server it is per listener: the options
	// its Binder gives.
	JSONRPC1 bool
	// SendJSONRPC1 makes Call, CallRaw and Notify send JSON-RPC 1.0
	// objects, for a peer that speaks only 1.0: {"id":…,"method":…,
	// "params":[…]}, params an array ([] for none; an object is
	// ErrParamsNotArray), a notification with id null. Answers are matched
	// by id as always. It implies JSONRPC1 (a 1.0 peer answers in 1.0);
	// CallBatch fails with ErrBatchJSONRPC1, as 1.0 has no batches.
	SendJSONRPC1 bool
	// ExposeErrors sends the text of a handler's plain Go errors to the
	// peer in the -32603 answer. Off by default: such text may reveal
	// internals; it is logged instead. Errors that carry a JSON-RPC code
	// (*codec.Error, codec.ErrCoder) are always sent as they are.
	ExposeErrors bool
	// WriteTimeout bounds a write that makes no progress on a stream with
	// write deadlines (net.Conn): past it the connection ends (default
	// 30s; negative: none). The deadline is refreshed once half of it has
	// gone by, so a stalled write fails after between half of it and all
	// of it.
	WriteTimeout time.Duration
	// IdleTimeout, when positive, closes a connection on a byte stream
	// with read deadlines (New with a net.Conn, say) that receives nothing
	// for that long while no request of the peer is in flight (default:
	// never). It is a clean end: Wait returns nil.
	IdleTimeout time.Duration
	// Context is the parent of every handler's context (default
	// context.Background()). FromContext finds the connection in it.
	Context context.Context
	// Logger receives protocol errors, handler errors and panics (default:
	// discard).
	Logger *slog.Logger
	// Metrics, if set, is told of every request the session answers or
	// refuses, with its method, code and latency, and of the handlers in
	// flight (see Metrics; package metrics has a Prometheus one). Nil
	// costs a nil test at each observation point. One Metrics may be
	// shared by every session of a server.
	Metrics Metrics
	// Peer is the other end of the session as its transport described it
	// to the Binder; Conn.Peer returns it. Transports set it on the
	// options the Binder chose (a Binder need not).
	Peer Peer
	// OnUnmatched, if set, is called on the reading goroutine for every
	// response of the peer that reaches no caller of Call, CallRaw or
	// CallBatch, with why and the response's id as received (a view valid
	// during the call only). Such a response is dropped either way: it
	// never reaches another caller. A client counts them with it; it must
	// not block. A malformed response (codec.KindBadResponse, or an object
	// with an id and neither method, result nor error) whose id names a
	// call waiting fails that call at once (MalformedResponsePrefix); one
	// that names none is dropped without being told here.
	OnUnmatched func(why Unmatched, id []byte)
	// OnClose, if set, is called once when the connection has ended, with
	// the connection and the error that ended it (nil for a clean end of
	// stream, Shutdown or Close): after every handler has returned and
	// Done is closed, so it may call Close or Wait. Wait may return before
	// OnClose has.
	OnClose func(c *Conn, err error)
}

// Bind gives every session the options o: an *Options is the simplest
// Binder.
func (o *Options) Bind(context.Context, *Peer) (*Options, error) { return o, nil }

func (o *Options) withDefaults() Options {
	var c Options
	if o != nil {
		c = *o
	}
	if c.Framing == nil {
		c.Framing = codec.Newline
	}
	c.JSONRPC1 = c.JSONRPC1 || c.SendJSONRPC1
	c.Limits = sharedLimits(c.Limits.WithDefaults())
	if c.MaxInFlight <= 0 {
		c.MaxInFlight = DefaultMaxInFlight
	}
	if c.WriteTimeout == 0 {
		c.WriteTimeout = DefaultWriteTimeout
	}
	if c.Context == nil {
		c.Context = context.Background()
	}
	if c.Logger == nil {
		c.Logger = discard
	}
	if c.Router == nil {
		c.Router = router.New()
	}
	return c
}

// retryAfter is the hint of the connection's -32000 answers: the
// executor's, else pool.DefaultRetryAfter.
func (o *Options) retryAfter() time.Duration {
	if h, ok := o.Pool.(interface{ RetryAfter() time.Duration }); ok && h.RetryAfter() > 0 {
		return h.RetryAfter()
	}
	return pool.DefaultRetryAfter
}

// lastLimits are the limits a session was given last, shared by the
// sessions given the same ones (a session per HTTP POST copies none).
// Never modified: a session's Limits are read only.
var lastLimits atomic.Pointer[codec.Limits]

// sharedLimits returns a pointer to limits l that no caller can modify.
func sharedLimits(l codec.Limits) *codec.Limits {
	if p := lastLimits.Load(); p != nil && *p == l {
		return p
	}
	p := new(codec.Limits)
	*p = l
	lastLimits.Store(p)
	return p
}

// discard is the Logger of sessions given none (shared: a logger is safe
// for concurrent use).
var discard = slog.New(slog.DiscardHandler)
