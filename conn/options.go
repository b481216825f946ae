package conn

import (
	"context"
	"log/slog"
	"time"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/pool"
	"github.com/mcpwire/mcpwire/router"
)

// Overload says what a connection does when MaxInFlight requests are
// already running.
type Overload uint8

const (
	// Block stops reading until a request finishes: the peer feels TCP or
	// pipe backpressure.
	Block Overload = iota
	// Reject answers the request at once with -32000 and data.retryAfterMs.
	Reject
)

// Default values of Options.
const (
	DefaultMaxInFlight = 1024
	DefaultRetryAfter  = 50 * time.Millisecond
	defaultMaxPending  = 4 << 20 // pending output before producers block
)

// Options configure a connection. A nil *Options gives the defaults; New
// copies the value, so later changes have no effect.
type Options struct {
	// Framing of both directions (default codec.Newline).
	Framing codec.Framing
	// Limits bound frames, depth and batches (nil: codec defaults).
	Limits *codec.Limits
	// Router serves the peer's requests and notifications. Nil serves
	// nothing: every request is answered -32601.
	Router *router.Router
	// Pool runs non-inline handlers. Nil starts one goroutine per request,
	// still bounded by MaxInFlight.
	Pool *pool.Pool
	// MaxInFlight bounds requests running at once on this connection
	// (default 1024).
	MaxInFlight int
	// Overload chooses between Block (default) and Reject when
	// MaxInFlight is reached.
	Overload Overload
	// RetryAfter is the hint sent with -32000 (default 50ms).
	RetryAfter time.Duration
	// HandlerTimeout, when positive, bounds each handler: a handler still
	// running then has its context cancelled and its request answered
	// -32012. It costs a timer per request.
	HandlerTimeout time.Duration
	// Context is the parent of every handler's context (default
	// context.Background()). FromContext finds the connection in it.
	Context context.Context
	// Logger receives protocol errors and handler panics (default: discard).
	Logger *slog.Logger
	// OnClose, if set, is called once when the connection has ended, with
	// the error that ended it (nil for a clean end of stream or Close).
	OnClose func(error)
}

func (o *Options) withDefaults() Options {
	var c Options
	if o != nil {
		c = *o
	}
	if c.MaxInFlight <= 0 {
		c.MaxInFlight = DefaultMaxInFlight
	}
	if c.RetryAfter <= 0 {
		c.RetryAfter = DefaultRetryAfter
	}
	if c.Context == nil {
		c.Context = context.Background()
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.Router == nil {
		c.Router = router.New()
	}
	return c
}
