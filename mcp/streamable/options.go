package streamable

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/transport"
)

// Defaults of Options.
const (
	DefaultSessionTimeout = 30 * time.Minute
	DefaultRetryInterval  = time.Second
	DefaultHTTPTimeout    = 30 * time.Second
)

// Options configure a Streamable HTTP handler (and an SSEHandler). A nil
// *Options gives the defaults; NewHandler copies the value. A zero field
// takes its default.
type Options struct {
	// HTTPOptions are the options every HTTP handler of the engine takes
	// (transport.HTTPOptions). Here ReadTimeout bounds reading one POST's
	// body and WriteTimeout one write to a client, set per request, so a
	// long-lived event stream needs no server-wide timeout (0:
	// DefaultHTTPTimeout; negative: none). A nil Logger is the server's
	// (mcp.Server.Logger). HostPolicy checks each request's Host and
	// Origin first, the origins of CORS allowed as if listed; a refusal is
	// 403 with -32010.
	transport.HTTPOptions
	// JSONResponse answers each POST that holds requests with one JSON
	// body, never an event stream; what the handlers send meanwhile
	// (progress, logs, sampling) then goes to the GET stream. Without it
	// the answer is JSON too unless a handler sends something first,
	// which turns it into an event stream carrying that and the answer. A
	// client that accepts only one of the two gets that one whatever this
	// says.
	JSONResponse bool
	// DisableStandaloneSSE answers a GET that opens a standalone stream
	// with 405, so the server cannot send what is unrelated to a request
	// (list_changed, resources/updated). A GET resuming a POST's stream
	// (Last-Event-ID) is still served.
	DisableStandaloneSSE bool
	// SessionTimeout ends a session that has seen no request and held no
	// stream open for that long (default DefaultSessionTimeout; negative:
	// never). POSTs of pings or responses only are no request, so a
	// client's keep-alive does not hold an abandoned session open. An
	// HTTP+SSE session ends once its client has POSTed no request for
	// that long and none of its requests is running.
	SessionTimeout time.Duration
	// MaxSessions bounds the sessions the server holds over HTTP, those of
	// all its HTTP handlers counted together (default DefaultMaxSessions;
	// negative: no bound). MaxSessionsPerPrincipal bounds those of one
	// principal (default DefaultMaxSessionsPerPrincipal; negative: no
	// bound): the authenticated identity in the request's context
	// (middleware.HTTPAuth puts it there), else the peer's IP address, a
	// routable IPv6 one by its /64 prefix. Behind a reverse proxy every
	// peer has the proxy's address: authenticate the clients, or lift that
	// bound. A new session past either is refused (see DefaultMaxSessions);
	// sessions already open go on. Each session holds its events for
	// resumption (below), so the memory bound is about MaxSessions ×
	// MaxSessionEventBytes.
	MaxSessions, MaxSessionsPerPrincipal int
	// MaxSessionEvents and MaxSessionEventBytes bound the events the
	// default EventStore keeps per session for resumption, the oldest
	// dropped past either, the newest kept whatever its size (defaults
	// DefaultMaxSessionEvents, DefaultMaxSessionEventsBytes). Ignored
	// when EventStore is set.
	MaxSessionEvents, MaxSessionEventBytes int
	// MaxBodyBytes bounds a POST's body in bytes; a longer one is 413 with
	// a JSON-RPC error (default: the server's frame limit,
	// ServerOptions.Conn.Limits.MaxFrameBytes, else
	// codec.DefaultMaxFrameBytes).
	MaxBodyBytes int
	// RetryInterval is the reconnection delay announced on each event
	// stream (the SSE retry field), which a client waits before resuming a
	// stream the server ended early (default DefaultRetryInterval;
	// negative: none sent).
	RetryInterval time.Duration
	// EventStore keeps each stream's events for resumption (nil: a
	// MemoryEventStore bounded by MaxSessionEvents and
	// MaxSessionEventBytes).
	EventStore EventStore
	// SessionStore records the sessions (nil: a MemorySessionStore).
	SessionStore SessionStore
	// CORS, if set, lets web pages of the origins it lists call the
	// endpoint from a browser: preflights are answered and CORS headers
	// added (see CORSOptions), and its origins pass the Origin check. Nil:
	// no CORS headers, and OPTIONS is 405.
	CORS *CORSOptions
	// Middleware, if set, wraps the endpoint's methods after the
	// HostPolicy and CORS: preflights (which carry no credentials) are
	// already answered, and a refusal it writes (401 and its
	// WWW-Authenticate) carries the CORS headers a page needs to read it.
	// Authentication (middleware.HTTPAuth) belongs here, not around the
	// handler.
	Middleware func(next http.Handler) http.Handler
	// ResourceMetadataURL, if set, is the URL of the endpoint's OAuth
	// protected resource metadata (RFC 9728; oauth.MetadataURL), named as
	// resource_metadata in the WWW-Authenticate header of a request
	// refused for want of a scope (see the package documentation,
	// "Authorization"), as oauth.BearerOptions.ResourceMetadataURL is in
	// the refusals of the Middleware.
	ResourceMetadataURL string
}

// logger returns the handler's logger: o.Logger, else srv's.
func (o *Options) logger(srv *mcp.Server) *slog.Logger {
	if o.Logger != nil {
		return o.Logger
	}
	return srv.Logger()
}

// wrap returns next behind o.Middleware, if any.
func (o *Options) wrap(next http.Handler) http.Handler {
	if o.Middleware == nil {
		return next
	}
	return o.Middleware(next)
}

func (o *Options) withDefaults(maxFrame int) Options {
	var c Options
	if o != nil {
		c = *o
	}
	if c.SessionTimeout == 0 {
		c.SessionTimeout = DefaultSessionTimeout
	}
	if c.MaxBodyBytes <= 0 {
		c.MaxBodyBytes = maxFrame
	}
	if c.RetryInterval == 0 {
		c.RetryInterval = DefaultRetryInterval
	}
	if c.ReadTimeout == 0 {
		c.ReadTimeout = DefaultHTTPTimeout
	}
	if c.WriteTimeout == 0 {
		c.WriteTimeout = DefaultHTTPTimeout
	}
	if c.MaxSessions == 0 {
		c.MaxSessions = DefaultMaxSessions
	}
	if c.MaxSessionsPerPrincipal == 0 {
		c.MaxSessionsPerPrincipal = DefaultMaxSessionsPerPrincipal
	}
	if c.EventStore == nil {
		c.EventStore = NewMemoryEventStore(c.MaxSessionEvents, c.MaxSessionEventBytes)
	}
	if c.SessionStore == nil {
		c.SessionStore = NewMemorySessionStore()
	}
	return c
}
