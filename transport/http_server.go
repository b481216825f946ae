package transport

import (
	"net/http"
	"time"

	"github.com/mcpwire/mcpwire/internal/httpjson"
)

// Timeouts NewHTTPServer sets.
const (
	// DefaultReadHeaderTimeout bounds reading a request's header: a peer
	// that trickles it in (slowloris) is cut off.
	DefaultReadHeaderTimeout = 10 * time.Second
	// DefaultHTTPReadTimeout bounds reading a whole request, header and
	// body.
	DefaultHTTPReadTimeout = 30 * time.Second
	// DefaultHTTPWriteTimeout bounds a request from the end of its header
	// to the end of its response: the handlers' run included, so it must
	// exceed the longest handler.
	DefaultHTTPWriteTimeout = 60 * time.Second
	// DefaultHTTPIdleTimeout closes a keep-alive connection that waits
	// that long for its next request.
	DefaultHTTPIdleTimeout = 2 * time.Minute
	// DefaultMaxHeaderBytes bounds a request's header.
	DefaultMaxHeaderBytes = 64 << 10
)

// HTTPServerOptions configure NewHTTPServer. A nil *HTTPServerOptions
// gives the defaults.
type HTTPServerOptions struct {
	// Addr is the address ListenAndServe listens on; leave it empty to
	// call Serve with a listener.
	Addr string
	// EventStreams says the server carries responses that stay open for
	// long (MCP's event streams, package mcp/streamable): the server then
	// sets no ReadTimeout nor WriteTimeout, which would cut them; each
	// body is still bounded (BodyTimeout), and the handlers bound their
	// own writes.
	EventStreams bool
	// BodyTimeout bounds reading each request's body, counted from the
	// end of its header, whatever handler the request goes to (default
	// DefaultHTTPReadTimeout).
	BodyTimeout time.Duration
}

// NewHTTPServer returns an http.Server serving h with its timeouts set (a
// zero http.Server has none, and one slow peer can hold a goroutine and a
// socket forever): DefaultReadHeaderTimeout, DefaultHTTPIdleTimeout,
// DefaultMaxHeaderBytes, and a bound on every request's body
// (HTTPServerOptions.BodyTimeout), so that a handler that answers without
// reading the body (a token check, say) cannot leave the server waiting
// for a stalled one. Unless opts.EventStreams, it sets
// DefaultHTTPReadTimeout and DefaultHTTPWriteTimeout as well. It is the
// one constructor of HTTP servers of the engine, for JSON-RPC over HTTP,
// WebSocket and MCP's HTTP endpoints alike. Change its fields before
// serving.
//
// HTTPHandler works within these bounds. The connections WebSocketHandler
// takes over leave them behind (net/http clears a connection's deadlines
// when it is taken over) and live on under their own keep-alive.
// Endpoints that hold a response open for long (MCP's event streams) need
// EventStreams; a JSON-RPC handler served beside them then bounds its
// writes with HTTPOptions.WriteTimeout.
func NewHTTPServer(h http.Handler, opts *HTTPServerOptions) *http.Server {
	var o HTTPServerOptions
	if opts != nil {
		o = *opts
	}
	if o.BodyTimeout <= 0 {
		o.BodyTimeout = DefaultHTTPReadTimeout
	}
	s := &http.Server{
		Addr:              o.Addr,
		Handler:           httpjson.BoundBodies(h, o.BodyTimeout),
		ReadHeaderTimeout: DefaultReadHeaderTimeout,
		IdleTimeout:       DefaultHTTPIdleTimeout,
		MaxHeaderBytes:    DefaultMaxHeaderBytes,
	}
	if !o.EventStreams {
		s.ReadTimeout = DefaultHTTPReadTimeout
		s.WriteTimeout = DefaultHTTPWriteTimeout
	}
	return s
}
