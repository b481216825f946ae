package router

import "context"

// CONTRACT STUB — to be replaced by the real router (helper: router+pool).

// Request is one call as a handler sees it. Its byte fields are views into
// the connection's buffers: valid until the handler returns; copy to keep.
type Request struct {
	Method string // the method name, unescaped
	ID     []byte // raw id as received; nil for a notification
	Params []byte // raw params array or object; nil when absent or null
}

// IsNotification reports whether no response will be sent.
func (r *Request) IsNotification() bool { return r.ID == nil }

// Handler serves one method. The result is encoded as the response's result
// (a codec.Raw is copied verbatim, anything else goes through sonic). An
// error that is a *codec.Error is sent as is; any other error becomes -32603
// with the error's text as message. A Handler must be safe for concurrent use.
type Handler interface {
	Handle(ctx context.Context, req *Request) (any, error)
}

// HandlerFunc adapts a function to Handler.
type HandlerFunc func(ctx context.Context, req *Request) (any, error)

// Handle calls f.
func (f HandlerFunc) Handle(ctx context.Context, req *Request) (any, error) { return f(ctx, req) }

// Middleware wraps a handler.
type Middleware func(next Handler) Handler

// MethodOptions tune one method.
type MethodOptions struct {
	// Inline runs the handler on the reading goroutine with no hand-off to
	// the pool: for cheap handlers that never block.
	Inline bool
}

// Entry is one registered method. Read-only.
type Entry struct {
	Method  string
	Handler Handler // with the router's middleware applied
	Inline  bool
}

// Router maps method names to handlers. Lookup takes no lock; Register,
// Unregister and Use may run at any time, under traffic. Safe for concurrent use.
type Router struct{}

// New returns an empty router.
func New() *Router { panic("not implemented") }

// Register adds or replaces method. Names beginning with "rpc." are reserved
// and refused, as is the empty name. opts may be nil.
func (r *Router) Register(method string, h Handler, opts *MethodOptions) error {
	panic("not implemented")
}

// Unregister removes method and reports whether it was registered.
func (r *Router) Unregister(method string) bool { panic("not implemented") }

// Use appends middleware, applied to every method (present and future), the
// first added outermost.
func (r *Router) Use(mw ...Middleware) { panic("not implemented") }

// Lookup finds method. It takes no lock and does not allocate.
func (r *Router) Lookup(method []byte) (*Entry, bool) { panic("not implemented") }
