package transport

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/internal/httpjson"
)

// HTTPOptions are the options every HTTP handler of the engine takes:
// HTTPHandler, FastHTTPHandler, and, embedded in their own options, MCP's
// (mcp/streamable.Options), so that they are set the same way on each. A
// nil *HTTPOptions gives the defaults; the handlers copy the value.
// FastHTTPHandler takes Logger and HostPolicy (fasthttp.Server bounds its
// reads and writes itself).
type HTTPOptions struct {
	// ReadTimeout bounds reading one request's body, and WriteTimeout
	// writing its answer once it is ready (0: the handler's default,
	// which for HTTPHandler is none of its own: the http.Server's
	// ReadTimeout and WriteTimeout still apply). They are
	// set per request on the connection (http.ResponseController), for a
	// handler mounted on a server whose own timeouts must stay off because
	// other endpoints hold long streams (MCP's event streams). With
	// NewHTTPServer they are redundant.
	ReadTimeout, WriteTimeout time.Duration
	// Logger receives refused sessions and failed body reads, at debug
	// level (nil: the handler's default; HTTPHandler's discards).
	Logger *slog.Logger
	// HostPolicy checks each request's Host and Origin before anything
	// else, against DNS rebinding (the zero value: on for a server
	// reached on a loopback address; see HostPolicy). A refusal is
	// answered 403 with -32010.
	HostPolicy HostPolicy
}

// HTTPHandler serves JSON-RPC 2.0 over plain HTTP POST: each request's
// body holds one message or a batch, and the response's body the answer.
// Mount it on a mux at the path of the user's choice (e.g. /rpc).
//
//   - Host and Origin are checked first (HTTPOptions.HostPolicy): a
//     request refused is answered 403 with -32010.
//   - POST only: any other method is answered 405 with Allow: POST.
//   - Content-Type must be application/json (parameters such as charset
//     allowed), else 415.
//   - A body over the session's frame limit (conn.Options.Limits.
//     MaxFrameBytes, 16 MiB unless the Binder sets it) is answered 413 and
//     not read further (the connection is closed after the answer).
//   - A body of only notifications (or only responses) is answered 204
//     with no body.
//   - Every other answer is 200 with the JSON-RPC response, or the
//     batch's array (a batch is always 200), except a single error
//     response whose code says more to HTTP: -32009 unauthorized → 401
//     with WWW-Authenticate: Bearer; -32010 forbidden → 403; -32011 too
//     many requests → 429, and -32000 overloaded carrying
//     data.retryAfterMs → 503, both with Retry-After (the hint in seconds,
//     rounded up); -32004, a request abandoned by Shutdown → 503. The
//     JSON-RPC body is sent with those statuses too.
//   - A body not sent whole within ReadTimeout is answered 400 and the
//     connection closed, as it is after any failed body read; nothing of
//     the error's text is sent.
//
// Every error status carries a JSON-RPC error response without id.
//
// # One session per request
//
// Each POST is served by a session of its own: the Binder is asked for
// its options with a conn.Peer of Transport "http" and Addr the request's
// remote address (host:port), and handlers see the request's header in
// their context (HeaderFromContext). Handlers see their session's context,
// so per-request values (credentials, trace context) can reach them only
// through a session per request; and a body-only session has no stream,
// so nothing it holds (its own calls to the peer) could outlive the POST
// anyway: nothing is lost by ending it with the answer. Shutdown answers
// the POSTs still running when a server shuts down. It costs about 4
// µs and 30 allocations per POST, against the tens of microseconds net/http
// itself spends on one. A session shared by every request would be
// cheaper but could not tell the Binder, nor per-peer middleware such as a
// rate limiter, who is calling. Sessions without a conn.Options.Pool
// hand their handlers to the pool those share: the handler holds it open
// (conn.Conn.HoldSharedPool) from the first session that used it until
// Shutdown, so that a client posting one request after another neither
// makes that pool nor starts a goroutine per request.
//
// The answer is sent once every handler the body started has returned:
// a body of notifications is answered 204 once they have been handled.
// A client that goes away cancels the handlers still running. Options
// that bound a connection's life (MaxInFlight, IdleTimeout) bound one
// POST here; a server-wide limit belongs in conn.Options.Admission.
//
// HTTPHandler is safe for concurrent use.
type HTTPHandler struct {
	b       conn.Binder
	opts    HTTPOptions
	log     *slog.Logger
	bodies  codec.BufferPool
	answers sync.Pool // of *answer, their reply bound: a POST allocates neither
	live    bodySessions
}

// NewHTTPHandler returns a handler serving each POST as a session whose
// options b chooses (an *conn.Options gives every session the same ones;
// nil: defaults). opts may be nil.
func NewHTTPHandler(b conn.Binder, opts *HTTPOptions) *HTTPHandler {
	h := &HTTPHandler{b: orDefaultBinder(b)}
	if opts != nil {
		h.opts = *opts
	}
	h.log = orDiscard(h.opts.Logger)
	return h
}

// ServeHTTP implements http.Handler.
func (h *HTTPHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// Before any answer: net/http reads what is left of the body when it
	// answers, and without a deadline a stalled body would hold it.
	httpjson.BoundBody(w, r, h.opts.ReadTimeout)
	if !h.opts.HostPolicy.Allow(w, r) {
		return
	}
	if r.Method != http.MethodPost {
		w.Header()["Allow"] = allowPost
		httpjson.Error(w, http.StatusMethodNotAllowed, codec.CodeInvalidRequest, msgMethodNotAllowed)
		return
	}
	if !httpjson.IsJSON(r.Header.Get("Content-Type")) {
		httpjson.Error(w, http.StatusUnsupportedMediaType, codec.CodeInvalidRequest, msgUnsupportedMedia)
		return
	}
	if !h.live.enter() {
		(&answer{w: w}).writeAs(shuttingDown, statusShuttingDown)
		return
	}
	defer h.live.leave()
	opts, err := bindRequest(h.b, r, "http")
	if err != nil {
		h.log.Debug("transport: http session refused", "remote", r.RemoteAddr, "err", err)
		refuse(w, err)
		return
	}
	buf := h.bodies.Get()
	defer h.bodies.Put(buf)
	body, ok := h.readBody(w, r, buf, opts.Limits.MaxFrameBytes)
	if !ok {
		return
	}
	a, _ := h.answers.Get().(*answer)
	if a == nil {
		a = newAnswer()
	}
	*a = answer{w: w, timeout: h.opts.WriteTimeout, live: &h.live, reply: a.reply}
	if !serveBody(r.Context(), &opts, body, a.reply, &h.live) {
		w.WriteHeader(http.StatusNoContent)
	}
	*a = answer{reply: a.reply} // holds nothing of this request
	h.answers.Put(a)
}

// serveBody serves body as a session of its own with opts, on ctx (a
// client gone: the request's context is done), giving reply the answer
// and the HTTP status it calls for. It reports whether the response is
// settled: true once answered, or when ctx ended first (nothing is to be
// written); false when no answer is due (204). live, if set, is where
// the session is tracked for a Shutdown (one that began already: reply
// is given a 503 refusal). It returns once the
// handlers the body started, the answer's and the notifications', have
// finished (or ctx is done).
func serveBody(ctx context.Context, opts *conn.Options, body []byte, reply func(msg []byte, st httpStatus), live *bodySessions) bool {
	c := conn.NewStream(nil, opts)
	if live != nil {
		if !live.track(c) {
			_ = c.Close()
			reply(shuttingDown, statusShuttingDown)
			return true
		}
		defer live.forget(c)
	}
	run := live.getRun()
	run.reply = reply
	err := c.ServeBody(ctx, body, run.put)
	if live != nil {
		live.holdSharedPool(c)
	}
	_ = c.Shutdown(ctx)
	answered := run.answered
	// ServeBody calls put before it returns, or never once it has
	// returned (it gives the sink up when ctx ends first): run is free.
	live.putRun(run)
	return answered || err != nil
}

// bodyRun is one call of serveBody: the sink of its body's answer. Runs
// are pooled (bodySessions.runs) with put bound once, so that serving a
// body allocates no closure for its answer.
type bodyRun struct {
	reply    func(msg []byte, st httpStatus)
	answered bool
	put      func(msg []byte) // run's deliver
}

// deliver gives the body's answer to reply with the status it calls for.
func (run *bodyRun) deliver(msg []byte) {
	run.reply(msg, statusOf(msg))
	run.answered = true
}

// getRun returns a run from b's pool (a new one for a nil b).
func (b *bodySessions) getRun() *bodyRun {
	var run *bodyRun
	if b != nil {
		run, _ = b.runs.Get().(*bodyRun)
	}
	if run == nil {
		run = new(bodyRun)
		run.put = run.deliver
	}
	return run
}

// putRun clears run and gives it back to b's pool.
func (b *bodySessions) putRun(run *bodyRun) {
	run.reply, run.answered = nil, false
	if b != nil {
		b.runs.Put(run)
	}
}

// readBody reads r's body into buf within max bytes and ReadTimeout,
// answering the request itself when it cannot (413, 400; the connection
// then ends with the answer: httpjson.ReadBody).
func (h *HTTPHandler) readBody(w http.ResponseWriter, r *http.Request, buf *codec.Buffer, max int) ([]byte, bool) {
	var err error
	buf.B, err = httpjson.ReadBody(w, r, buf.B, max, 0) // bounded in ServeHTTP
	if err != nil {
		h.log.Debug("transport: reading an http body", "remote", r.RemoteAddr, "err", err)
		return nil, false
	}
	return buf.B, true
}

// answer writes a POST's answer with the status its content calls for.
type answer struct {
	w       http.ResponseWriter
	timeout time.Duration
	live    *bodySessions // nil: no Shutdown to write out for
	sent    bool
	reply   func(msg []byte, st httpStatus) // writeAs, bound once (newAnswer)
}

// newAnswer returns an answer with its reply bound, for
// HTTPHandler.answers.
func newAnswer() *answer {
	a := new(answer)
	a.reply = a.writeAs
	return a
}

// chunkAbove is the length of net/http's response buffer
// (bufferBeforeChunkingSize): an answer that fits gets its
// Content-Length from net/http when the handler returns; a longer one is
// sent chunked unless the handler sets it.
const chunkAbove = 2048

// writeAs sends msg with st's status and headers. As serveBody's reply it
// runs once, before serveBody returns, while ServeHTTP waits, so w is not
// used concurrently.
func (a *answer) writeAs(msg []byte, st httpStatus) {
	hd := a.w.Header()
	hd["Content-Type"] = httpjson.ContentType
	st.SetHeaders(hd)
	if a.timeout > 0 {
		_ = http.NewResponseController(a.w).SetWriteDeadline(time.Now().Add(a.timeout))
	}
	// Once Shutdown began, the answer is written out before ServeHTTP
	// returns: Shutdown waits for ServeHTTP, and the server may close the
	// connection right after (net/http would write it only on return).
	flush := a.live != nil && a.live.stopping.Load()
	if flush || len(msg) > chunkAbove {
		hd["Content-Length"] = []string{strconv.Itoa(len(msg))}
	}
	a.w.WriteHeader(st.Code)
	a.w.Write(msg)
	if flush {
		_ = http.NewResponseController(a.w).Flush()
	}
	a.sent = true
}

// bindRequest asks b for the options of a session serving r: the Binder
// sees the request's header in its context and a Peer of transport tr at
// r's remote address. The options returned are a copy whose Context
// carries the header (HeaderFromContext), whose Peer is that peer and
// whose Limits are set.
func bindRequest(b conn.Binder, r *http.Request, tr string) (conn.Options, error) {
	return bindHTTP(b, r.Context(), r.Header, r.RemoteAddr, tr)
}

// bindHTTP is bindRequest for a request from remote whose own context is
// ctx, with header: an http.Header, or a *rawHeader (HeaderFromContext
// reads either).
func bindHTTP(b conn.Binder, ctx context.Context, header any, remote, tr string) (conn.Options, error) {
	peer := conn.Peer{Transport: tr, Addr: remote}
	o, err := b.Bind(context.WithValue(ctx, headerKey{}, header), &peer)
	if err != nil {
		return conn.Options{}, err
	}
	var opts conn.Options
	if o != nil {
		opts = *o
	}
	opts.Peer = peer // for per-peer middleware (rate limits by IP over POST)
	parent := opts.Context
	if parent == nil {
		parent = context.Background()
	}
	opts.Context = context.WithValue(parent, headerKey{}, header)
	lim := opts.Limits.WithDefaults()
	opts.Limits = &lim
	return opts, nil
}

// refuse answers a request whose session the Binder refused: an error
// carrying a JSON-RPC code is sent as it is, with the status its code maps
// to (400 for the codes that map to none); any other is 403 -32010.
func refuse(w http.ResponseWriter, err error) {
	msg, st := refusalOf(err)
	(&answer{w: w}).writeAs(msg, st)
}

// refusalOf returns the answer to a request whose session the Binder
// refused with err, and its status (see refuse).
func refusalOf(err error) ([]byte, httpStatus) {
	e := errRefused
	var re *codec.Error
	var ec codec.ErrCoder
	switch {
	case errors.As(err, &re):
		e = re
	case errors.As(err, &ec):
		e = codec.NewError(ec.ErrCode(), ec.Error())
	}
	msg := codec.AppendError(nil, nil, e)
	st := statusOf(msg)
	if st.Code == http.StatusOK {
		st.Code = http.StatusBadRequest
	}
	return msg, st
}

// The messages of the error statuses both HTTP handlers answer.
const (
	msgMethodNotAllowed = "Method Not Allowed: JSON-RPC over HTTP takes POST"
	msgUnsupportedMedia = "Unsupported Media Type: the body must be application/json"
	msgTooLarge         = httpjson.MsgTooLarge
	msgBadRequest       = httpjson.MsgRequestRead
)

var errRefused = codec.NewError(codec.CodeForbidden, "Forbidden: session refused")

// allowPost is assigned to header maps as it is (Header.Set would
// allocate a slice per response). Never modified; its capacity is its
// length, so an Add to the header copies it.
var allowPost = []string{"POST"}

// orDefaultBinder returns b, or default options for a nil one.
func orDefaultBinder(b conn.Binder) conn.Binder {
	if o, ok := b.(*conn.Options); b == nil || ok && o == nil {
		return new(conn.Options)
	}
	return b
}

// orDiscard returns l, or a logger that discards for a nil one.
func orDiscard(l *slog.Logger) *slog.Logger {
	if l == nil {
		return slog.New(slog.DiscardHandler)
	}
	return l
}
