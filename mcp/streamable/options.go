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

// Options configure a Streamable HTTP handler. A nil *Options gives
// the defaults; NewHandler copies the value.
type Options struct {
	// HTTPOptions are what every HTTP handler of the engine takes, set the
	// same way on each (transport.HTTPOptions):
	//   - ReadTimeout bounds reading one POST's body and WriteTimeout one
	//     write to a client (here 0 is DefaultHTTPTimeout; negative:
	//     none). They are set per request on the connection
	//     (http.ResponseController), so a long-lived event stream needs
	//     no server-wide timeout.
	//   - Logger receives what the handler logs (nil: the server's,
	//     mcp.Server.Logger).
	//   - HostPolicy checks each request's Host and Origin first, against
	//     DNS rebinding (transport.HostPolicy); the origins of CORS are
	//     allowed as if listed in its AllowedOrigins. A refusal is
	//     answered 403 with -32010.
	transport.HTTPOptions
	// JSONResponse answers each POST that holds requests with one JSON
	// body (application/json) instead of an event stream. Messages the
	// handlers send meanwhile (progress, logs, sampling) then go to the
	// session's GET stream. A client that accepts only one of the two
	// gets that one whatever this says.
	JSONResponse bool
	// DisableStandaloneSSE answers a GET that opens a stream of its own
	// with 405: the server then has no way to send what is unrelated to a
	// request (list_changed, resources/updated). A GET resuming a POST's
	// stream (Last-Event-ID) is still served.
	DisableStandaloneSSE bool
	// SessionTimeout ends a session that has seen no request and held no
	// stream open for that long (default 30 minutes; negative: never).
	// POSTs of pings only, or of responses only, are no request here: a
	// client's keep-alive does not hold an abandoned session open
	// (KeepAlive). An HTTP+SSE session (SSEHandler), whose stream is
	// always open, ends once its client has POSTed no request for that
	// long and none of its requests is running.
	SessionTimeout time.Duration
	// MaxSessions bounds the sessions the server holds over HTTP, those of
	// all its HTTP handlers counted together (default DefaultMaxSessions;
	// negative: no bound). MaxSessionsPerPrincipal bounds those of one
	// principal: the authenticated identity the request's context carries
	// (middleware.HTTPAuth puts it there), else the peer's IP address, a
	// routable IPv6 one by its /64 prefix (default
	// DefaultMaxSessionsPerPrincipal; negative: no bound). Behind a reverse proxy every peer has the
	// proxy's address: authenticate the clients, or lift that bound. A new
	// session past either is refused with HTTP 503, Retry-After and a
	// -32000 error whose data names the limit (see DefaultMaxSessions);
	// the sessions already open go on.
	//
	// What a session holds, measured (TestHTTP_sessionMemory; Go 1.26,
	// amd64): about 4.4 KiB while idle, its initialize request in the
	// default SessionStore included; about 157 KiB once subscribed with
	// its stream's events at the default retention (DefaultMaxSessionEvents
	// resources/updated notifications of about 90 bytes each, some 150
	// bytes an event kept). Events are bounded per session by count and by
	// bytes (MaxSessionEvents, MaxSessionEventBytes), so a session whose
	// client draws large messages (long tool results on POST streams, which
	// are kept for resumption too) holds up to about MaxSessionEventBytes,
	// 1 MiB by default, plus its newest event, which is kept whatever its
	// size. With the defaults that is about 44 MiB for DefaultMaxSessions
	// idle sessions, 1.5 GiB for as many subscribed ones, and for sessions
	// full of large events over 1 GiB for one principal's (over 10 GiB for
	// all): a server that cannot spare that lowers the bounds or the
	// retention.
	MaxSessions, MaxSessionsPerPrincipal int
	// MaxSessionEvents and MaxSessionEventBytes bound the events the
	// default EventStore keeps per session for resumption: the oldest
	// are dropped past either (NewMemoryEventStore's bounds; defaults
	// DefaultMaxSessionEvents, DefaultMaxSessionEventsBytes). Ignored
	// when EventStore is set.
	MaxSessionEvents, MaxSessionEventBytes int
	// MaxBodyBytes bounds a POST's body: a longer one is answered 413 with
	// a JSON-RPC error (default: the server's frame limit,
	// ServerOptions.Conn.Limits.MaxFrameBytes, 16 MiB unless set).
	MaxBodyBytes int
	// RetryInterval is the reconnection delay announced on each event
	// stream (the SSE retry field), which a client waits before resuming a
	// stream the server ended early (default 1s; negative: none sent).
	RetryInterval time.Duration
	// EventStore keeps each stream's events for resumption (nil: a
	// MemoryEventStore with its default bounds).
	EventStore EventStore
	// SessionStore records the sessions (nil: a MemorySessionStore).
	SessionStore SessionStore
	// CORS, if set, lets web pages of the origins it lists call the
	// endpoint from a browser: it answers preflights and adds the CORS
	// headers (see CORSOptions). Its origins pass the Origin check above
	// too. Nil: no CORS headers, and OPTIONS is 405.
	CORS *CORSOptions
	// Middleware, if set, wraps the endpoint's methods: it sees each
	// request the HostPolicy and CORS let through, after CORS has
	// answered preflights and set its headers. Authentication belongs
	// here (middleware.HTTPAuth, say), not around the handler: a
	// browser's preflight, which never carries credentials, is then
	// answered, and a refusal (401 and its WWW-Authenticate) carries the
	// CORS headers the page needs to read it.
	Middleware func(next http.Handler) http.Handler
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
