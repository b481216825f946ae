package transport

import (
	"bufio"
	"context"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/coder/websocket"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/internal/httpjson"
)

// Defaults of WebSocketOptions.
const (
	DefaultPingInterval = 30 * time.Second
)

// WebSocketOptions configure a WebSocket handler (NewWebSocketHandler) or
// client stream (DialWebSocket); each field says which side reads it. A
// nil *WebSocketOptions gives the defaults; the value is copied.
type WebSocketOptions struct {
	// PingInterval is how often each side pings its peer (default
	// DefaultPingInterval; negative: never). Both: a peer that does not
	// answer a ping within PingTimeout, or whose ping cannot even be sent
	// (it stopped reading, and a write is stuck), is cut off and its
	// session ends. Pings are answered by the session's reader: under
	// pool.Block, a session whose reader waits for room longer than
	// PingTimeout is taken for dead too.
	PingInterval time.Duration
	// PingTimeout is how long a ping may wait for its pong (default
	// PingInterval). Both.
	PingTimeout time.Duration
	// HostPolicy checks the upgrade request's Host and Origin before
	// anything else, against DNS rebinding and cross-site WebSocket
	// hijacking (the zero value: on for a server reached on a loopback
	// address; see HostPolicy). A refusal is answered 403 with -32010.
	// It replaces coder/websocket's own Origin check, which trusts Host.
	// Server only.
	HostPolicy HostPolicy
	// Logger receives refused sessions and failed upgrades at debug level
	// (nil: discard). Server only.
	Logger *slog.Logger

	// Header is added to the upgrade request (Authorization, say). Client
	// only.
	Header http.Header
	// HTTPClient performs the upgrade request (nil: one of its own, with
	// proxies from the environment). With one of the caller's, a closing
	// handshake the server does not answer can take coder/websocket's own
	// bound (10 s) rather than a second. Client only.
	HTTPClient *http.Client
	// Limits bound what the client reads: a message longer than
	// MaxFrameBytes is skipped and answered -32600 (nil: codec defaults).
	// Client only; a server session reads within the limits its Binder
	// gives it.
	Limits *codec.Limits
}

func (o *WebSocketOptions) withDefaults() WebSocketOptions {
	var c WebSocketOptions
	if o != nil {
		c = *o
	}
	if c.PingInterval == 0 {
		c.PingInterval = DefaultPingInterval
	}
	if c.PingTimeout <= 0 {
		c.PingTimeout = max(c.PingInterval, 0)
	}
	return c
}

// WebSocketHandler serves JSON-RPC 2.0 over WebSocket: each connection is
// one session, carrying one JSON-RPC message or batch per WebSocket
// message (text; binary is read too), answered in text messages. Mount it
// on a mux at the path of the user's choice (e.g. /ws).
//
// The upgrade request's Host and Origin are checked first
// (WebSocketOptions.HostPolicy). The Binder is asked for the session's
// options before the upgrade, with
// a conn.Peer of Transport "ws" and Addr the remote address (host:port),
// and the upgrade request's header in its context; a refusal is answered
// with an HTTP status as HTTPHandler's are (403 for a plain error). The
// session's handlers find that header with HeaderFromContext. A message
// longer than the session's frame limit is skipped unread and answered
// -32600, as on every transport; the session reads on. Both sides keep the
// connection alive with pings (WebSocketOptions.PingInterval).
//
// The connections it takes over outlive ServeHTTP and are not tracked by
// http.Server: the server's ReadTimeout and WriteTimeout no longer apply
// to them (net/http clears a connection's deadlines when it is taken
// over), and Shutdown or Close ends them. It is safe for concurrent use.
type WebSocketHandler struct {
	b      conn.Binder
	opts   WebSocketOptions
	log    *slog.Logger
	accept websocket.AcceptOptions
	live   sessions
}

// NewWebSocketHandler returns a handler serving each WebSocket connection
// as a session whose options b chooses (an *conn.Options gives every
// session the same ones; nil: defaults). opts may be nil.
func NewWebSocketHandler(b conn.Binder, opts *WebSocketOptions) *WebSocketHandler {
	o := opts.withDefaults()
	return &WebSocketHandler{
		b:    orDefaultBinder(b),
		opts: o,
		log:  orDiscard(o.Logger),
		// The HostPolicy has checked Origin, against more than Host.
		accept: websocket.AcceptOptions{InsecureSkipVerify: true},
	}
}

// ServeHTTP implements http.Handler: it upgrades the request and starts
// its session, then returns.
func (h *WebSocketHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !h.opts.HostPolicy.Allow(w, r) {
		return
	}
	if h.live.Closed() {
		httpjson.Error(w, http.StatusServiceUnavailable, codec.CodeOverloaded, "Service Unavailable: shutting down")
		return
	}
	if r.ContentLength != 0 || len(r.TransferEncoding) > 0 {
		// An upgrade has no body: what followed the header would be read
		// as frames (and a stalled one would hold the connection).
		httpjson.ErrorClose(w, http.StatusBadRequest, codec.CodeInvalidRequest, "Bad Request: a WebSocket upgrade has no body")
		return
	}
	opts, err := bindRequest(h.b, r, "ws")
	if err != nil {
		h.log.Debug("transport: ws session refused", "remote", r.RemoteAddr, "err", err)
		refuse(w, err)
		return
	}
	hw := &hijackWriter{ResponseWriter: w}
	ws, err := websocket.Accept(hw, r, &h.accept)
	if err != nil { // answered by Accept
		h.log.Debug("transport: ws upgrade failed", "remote", r.RemoteAddr, "err", err)
		return
	}
	mc := newWSConn(ws, hw.nc, opts.Limits.MaxFrameBytes, h.opts.PingInterval, h.opts.PingTimeout)
	opts.OnClose = forgetOnClose(&h.live, nil, opts.OnClose)
	c := conn.NewStream(&wsServerStream{wsConn: mc, br: hw.rw.Reader}, &opts)
	if track(&h.live, c) != nil {
		c.Close() // Shutdown or Close began meanwhile
	}
}

// Len returns the number of sessions being served. A session that has
// ended is no longer counted by the time its OnClose runs.
func (h *WebSocketHandler) Len() int { return h.live.Len() }

// Shutdown refuses new connections (503) and shuts every session down
// gracefully, in parallel (conn.Conn.Shutdown): requests in flight are
// answered until ctx is done, then each connection ends with a closing
// handshake. It returns once every session has ended, or when ctx is done.
// Call it beside http.Server.Shutdown, which does not know the connections
// taken over.
func (h *WebSocketHandler) Shutdown(ctx context.Context) error {
	return h.live.Shutdown(ctx)
}

// Close refuses new connections and closes every session at once, and
// waits for them to end.
func (h *WebSocketHandler) Close() error {
	return h.live.Close()
}

// hijackWriter records the connection websocket.Accept takes over, so that
// answers can be written to it coalesced and a stuck closing handshake cut
// short, and its read buffer, which coder/websocket reads from.
type hijackWriter struct {
	http.ResponseWriter
	nc net.Conn
	rw *bufio.ReadWriter
}

// Hijack takes the connection over through the writer underneath.
func (w *hijackWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	nc, rw, err := http.NewResponseController(w.ResponseWriter).Hijack()
	w.nc, w.rw = nc, rw
	return nc, rw, err
}

// Unwrap returns the writer underneath, for http.ResponseController.
func (w *hijackWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
