package client

import (
	"context"
	"os/exec"
	"sync/atomic"

	"github.com/mcpwire/mcpwire/conn"
)

// DialFunc opens the stream of a new session: a TCP or Unix socket framed
// by conn.NewByteStream, a WebSocket, an HTTP stream, a child process's
// stdin and stdout. The client calls it for its first session and again
// for every session it opens after one ended, with the context of the call
// that needs it; the session owns the stream it returns and closes it.
type DialFunc func(ctx context.Context) (conn.Stream, error)

// Client calls a JSON-RPC server over sessions it dials, and dials again
// when they end. It is safe for concurrent use: any number of goroutines
// may Call, Batch and Notify at once, and Close.
type Client struct {
	dial   DialFunc
	opts   options
	slots  []*slot
	cache  *resultCache // nil: no method cached
	st     counters
	closed atomic.Bool
}

// New returns a client that opens its sessions with dial, the first one
// when the first call needs it. opts may be nil.
func New(dial DialFunc, opts *Options) *Client {
	c := &Client{dial: dial, opts: opts.withDefaults()}
	c.slots = make([]*slot, c.opts.sessions)
	for i := range c.slots {
		c.slots[i] = &slot{cl: c}
	}
	if c.opts.cache != nil {
		c.cache = newResultCache(c.opts.cache)
	}
	return c
}

// Dial returns a client of the server at addr, "tcp://HOST:PORT" or
// "unix://PATH" (transport.ParseAddr), its byte streams framed by
// opts.Session.Framing (default newline). It opens the first session
// before it returns, so that a wrong address or a server that is not
// there fails here.
func Dial(ctx context.Context, addr string, opts *Options) (*Client, error) {
	o := opts.withDefaults()
	dial, err := addrDialer(addr, o.session.Framing, o.session.Limits)
	if err != nil {
		return nil, err
	}
	return connected(ctx, New(dial, opts))
}

// DialCommand returns a client of a server it runs as a child process,
// speaking over the child's stdin and stdout (MCP's stdio transport),
// framed by opts.Session.Framing (default newline). newCmd makes the
// command, afresh for every session: a session that ends (the child
// exits) is followed by a new child when a call needs one. newCmd must
// leave Stdin and Stdout unset; Stderr, Env, Dir are the caller's to set.
// A session that closes closes the child's stdin, and kills the child if
// it has not exited within CommandGrace. DialCommand starts the first
// child before it returns.
func DialCommand(ctx context.Context, newCmd func() *exec.Cmd, opts *Options) (*Client, error) {
	o := opts.withDefaults()
	return connected(ctx, New(commandDialer(newCmd, o.session.Framing, o.session.Limits), opts))
}

// connected opens c's first session, or closes c.
func connected(ctx context.Context, c *Client) (*Client, error) {
	if _, err := c.slots[0].session(ctx); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// Close closes every session: calls still waiting fail, and later ones
// fail with ErrClosed. It waits for the sessions to end (and, for
// DialCommand, their children to exit). It returns nil.
func (c *Client) Close() error {
	if !c.closed.CompareAndSwap(false, true) {
		return nil
	}
	for _, sl := range c.slots {
		sl.close()
	}
	return nil
}
