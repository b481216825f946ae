package conn

import "context"

// Peer describes the other end of a new session, for a Binder.
type Peer struct {
	// Transport names what carries the session: "tcp", "unix", "stdio",
	// "http", "ws", "pipe"…
	Transport string
	// Addr is the peer's address where the transport has one, else "".
	Addr string
}

// Binder chooses the options of each new session: its router (handlers
// of its own), limits, logger, close callback. A server calls Bind once
// per session before serving it; an error refuses the session (the server
// closes it at once). *Options is a Binder that gives every session the
// same options. Implementations must be safe for concurrent use.
type Binder interface {
	Bind(ctx context.Context, p *Peer) (*Options, error)
}

// BinderFunc adapts a function to Binder.
type BinderFunc func(ctx context.Context, p *Peer) (*Options, error)

// Bind calls f.
func (f BinderFunc) Bind(ctx context.Context, p *Peer) (*Options, error) { return f(ctx, p) }
