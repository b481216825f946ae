package router

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// Request is one call as a handler sees it. Its byte fields are views into
// the connection's buffers: valid until the handler returns; copy to keep.
type Request struct {
	Method string // the method name, unescaped
	ID     []byte // raw id as received; nil for a notification
	Params []byte // raw params array or object; nil when absent or null
	// Intercepted is the raw result the method's interceptor answered
	// the request with (a cache hit), while the middleware runs around
	// it (Entry.Intercepted); nil otherwise. Middleware may read it (to
	// log a hit, say); the result sent is what the chain returns.
	Intercepted []byte
}

// IsNotification reports whether no response will be sent.
func (r *Request) IsNotification() bool { return r.ID == nil }

// Handler serves one method. The result is encoded as the response's result
// (a codec.Raw is copied verbatim, anything else goes through sonic). An
// error that carries a JSON-RPC code (a *codec.Error, or a codec.ErrCoder)
// is sent with that code; any other error is answered -32603 "Internal
// error" and logged, its text sent only if the connection opts in
// (conn.Options.ExposeErrors). A Handler must be safe for concurrent use.
type Handler interface {
	Handle(ctx context.Context, req *Request) (any, error)
}

// AppendHandler is a Handler that can also encode its result itself,
// straight after the bytes it is given: a connection serves a request
// with HandleAppend when its handler has it, so that the result is not
// put in an interface on its way to the wire (an allocation for a string
// or a struct). Func's handlers have it; a middleware's wrapper need not.
type AppendHandler interface {
	Handler
	// HandleAppend serves req as Handle does and appends its result's
	// JSON to dst. On an error it returns dst as it was, and the error:
	// the handler's, or a *ResultError when the result cannot be encoded.
	HandleAppend(ctx context.Context, req *Request, dst []byte) ([]byte, error)
}

// ResultError is HandleAppend's error for a result it could not encode:
// the handler itself succeeded.
type ResultError struct{ Err error }

func (e *ResultError) Error() string { return "router: cannot encode the result: " + e.Err.Error() }

// Unwrap returns the encoder's error.
func (e *ResultError) Unwrap() error { return e.Err }

// HandlerFunc adapts a function to Handler.
type HandlerFunc func(ctx context.Context, req *Request) (any, error)

// Handle calls f.
func (f HandlerFunc) Handle(ctx context.Context, req *Request) (any, error) { return f(ctx, req) }

// Interceptor answers requests for a method before they reach its handler:
// a response cache is one. It runs on the goroutine that dispatches the
// request (a connection's reader), before admission and before any hand-off
// to the pool, so a hit costs no worker wake-up and no copy of the frame;
// it must therefore be quick and never block. It sees requests only, never
// notifications.
//
// To answer, it returns the raw JSON result (valid JSON it produced or
// stored, never modified afterwards: the connection copies it into the
// response after Intercept returns) and true. To let the request through to
// the handler it returns false. req and its byte fields are views valid
// only during the call. Implementations must be safe for concurrent use.
//
// The router's middleware applies to an intercepted request too: its
// answer goes to the peer through the middleware (Entry.Intercepted),
// which may refuse it (an unauthenticated caller, a rate-limited peer).
// The interceptor itself runs first, so it must not count or act on a
// request as answered before the middleware has let it through.
type Interceptor interface {
	Intercept(req *Request) (result []byte, ok bool)
}

// MethodOptions tune one method.
type MethodOptions struct {
	// Inline runs the handler on the reading goroutine with no hand-off to
	// the pool: for cheap handlers that never block.
	Inline bool
	// Intercept, if set, sees every request for the method before its
	// handler and may answer it itself.
	Intercept Interceptor
	// Cache, if set, answers repeated calls from stored results and folds
	// identical concurrent calls into one run of the handler (see the
	// package documentation). It cannot be combined with Inline or
	// Intercept (ErrCacheConflict).
	Cache Cache
}

// Entry is one registered method. Read-only: the router never changes an
// Entry once Lookup can return it; registering again publishes a new one.
type Entry struct {
	Method    string
	Handler   Handler // with the router's middleware applied
	Inline    bool
	Intercept Interceptor // nil: none; a cached method's is its cache
	// Intercepted, for a method with an interceptor under middleware, is
	// that middleware around a handler that returns the interceptor's
	// result (Request.Intercepted, as a codec.Raw). A connection answers
	// an intercepted request through it, on the goroutine that
	// intercepted it, so that the middleware (authentication,
	// authorisation, rate limits) applies to a cache hit as to a miss.
	// Nil when no middleware wraps the method: a hit is answered as it is.
	Intercepted Handler

	base Handler // as registered (behind its cache, if any), before middleware
}

// wrap builds e's handlers with the middleware mw.
func (e *Entry) wrap(mw []Middleware) {
	e.Handler = chain(mw, e.base)
	e.Intercepted = nil
	if e.Intercept != nil {
		if h := chain(mw, interceptedResult{}); h != (interceptedResult{}) {
			e.Intercepted = h
		}
	}
}

// Registration errors. Compare with errors.Is.
var (
	// ErrReservedName refuses a method name beginning with "rpc.": JSON-RPC
	// 2.0 reserves those for the protocol.
	ErrReservedName = errors.New(`router: method names beginning with "rpc." are reserved`)
	// ErrEmptyName refuses the empty method name.
	ErrEmptyName = errors.New("router: empty method name")
	// ErrNilHandler refuses a nil handler.
	ErrNilHandler = errors.New("router: nil handler")
	// ErrCacheConflict refuses MethodOptions.Cache together with Inline
	// (a miss may wait for another call's fill, which the reader must
	// never do) or Intercept (the cache is the method's interceptor).
	ErrCacheConflict = errors.New("router: a cached method can be neither Inline nor intercepted")
)

// Router maps method names to handlers. Lookup takes no lock; Register,
// Unregister and Use may run at any time, under traffic. Safe for concurrent
// use. The zero Router is empty and ready to use; do not copy a Router after
// first use.
type Router struct {
	tab atomic.Pointer[table] // nil means empty; replaced, never modified

	mu sync.Mutex   // serialises writers; readers never take it
	mw []Middleware // guarded by mu; first is outermost
}

// New returns an empty router.
func New() *Router { return new(Router) }

// Register adds or replaces method. Names beginning with "rpc." are reserved
// and refused, as is the empty name. opts may be nil; a Cache together with
// Inline or Intercept is refused (ErrCacheConflict).
func (r *Router) Register(method string, h Handler, opts *MethodOptions) error {
	switch {
	case method == "":
		return ErrEmptyName
	case strings.HasPrefix(method, "rpc."):
		return ErrReservedName
	case h == nil:
		return ErrNilHandler
	}
	e := &Entry{Method: method, base: h}
	if opts != nil {
		e.Inline, e.Intercept = opts.Inline, opts.Intercept
		if opts.Cache != nil {
			if opts.Inline || opts.Intercept != nil {
				return ErrCacheConflict
			}
			ch := &cached{c: opts.Cache, next: h}
			e.base, e.Intercept = ch, ch
		}
	}

	r.mu.Lock()
	defer r.mu.Unlock()
	e.wrap(r.mw)
	r.tab.Store(r.tab.Load().with(e))
	return nil
}

// Unregister removes method and reports whether it was registered.
func (r *Router) Unregister(method string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	t := r.tab.Load()
	if _, ok := t.lookup(method); !ok {
		return false
	}
	r.tab.Store(t.without(method))
	return true
}

// Lookup finds method. It takes no lock and does not allocate.
func (r *Router) Lookup(method []byte) (*Entry, bool) {
	t := r.tab.Load()
	if t == nil {
		return nil, false
	}
	e, ok := t.m[string(method)] // no conversion: the compiler looks up the bytes
	return e, ok
}

// Methods returns the registered method names, sorted. It allocates; it is
// meant for diagnostics (a method-not-found answer, a listing), not dispatch.
func (r *Router) Methods() []string {
	t := r.tab.Load()
	if t == nil {
		return nil
	}
	names := make([]string, 0, len(t.m))
	for name := range t.m {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}
