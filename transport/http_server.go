package transport

import (
	"net/http"
	"time"
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

// NewHTTPServer returns an http.Server serving h with every timeout set
// (a zero http.Server has none, and one slow peer can hold a goroutine and
// a socket forever): DefaultReadHeaderTimeout, DefaultHTTPReadTimeout,
// DefaultHTTPWriteTimeout, DefaultHTTPIdleTimeout and
// DefaultMaxHeaderBytes. Change its fields before serving; set Addr for
// ListenAndServe, or call Serve with a listener.
//
// HTTPHandler works within these bounds. The connections WebSocketHandler
// takes over leave them behind (net/http clears a connection's deadlines
// when it is taken over) and live on under their own keep-alive. Endpoints that hold a response open for long (MCP's
// event streams) do not fit a server-wide ReadTimeout and WriteTimeout:
// serve those with a server of their own, or without the two and with
// HTTPOptions.ReadTimeout and WriteTimeout set on the JSON-RPC handler.
func NewHTTPServer(h http.Handler) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: DefaultReadHeaderTimeout,
		ReadTimeout:       DefaultHTTPReadTimeout,
		WriteTimeout:      DefaultHTTPWriteTimeout,
		IdleTimeout:       DefaultHTTPIdleTimeout,
		MaxHeaderBytes:    DefaultMaxHeaderBytes,
	}
}
