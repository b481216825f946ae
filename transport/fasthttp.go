package transport

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"sync"

	"github.com/valyala/fasthttp"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/internal/httpjson"
	"github.com/mcpwire/mcpwire/internal/unsafex"
)

// FastHTTPHandler serves JSON-RPC 2.0 over plain HTTP POST on
// github.com/valyala/fasthttp, with the contract of HTTPHandler: the same
// status table, a session per POST bound the same way (a conn.Peer of
// Transport "http"; the request's header in the Binder's and the
// handlers' context, parsed into an http.Header when first asked for), the same answers byte for
// byte. Serve ServeFastHTTP with NewFastHTTPServer, alone or as a route of
// a fasthttp router.
//
// Why a second server: net/http writes every response with a system call
// of its own and spends a goroutine per request watching the connection,
// and at JSON-RPC's sizes that is most of a call's cost. fasthttp reuses
// its request state and, when a client pipelines requests on a
// connection, writes their responses out together. Choose it for an
// endpoint that carries only JSON-RPC POSTs and must serve many small
// calls; choose HTTPHandler to share a net/http mux (MCP's endpoints,
// WebSocket) or its middleware.
//
// HTTPOptions' ReadTimeout and WriteTimeout do not apply: fasthttp sets
// timeouts per server (NewFastHTTPServer sets them all). A client gone
// away is noticed when its answer is written, not before: the handlers
// run to the end, or until Shutdown abandons them.
type FastHTTPHandler struct {
	b       conn.Binder
	log     *slog.Logger
	policy  HostPolicy
	live    bodySessions
	answers sync.Pool // of *fastAnswer, their reply bound: a POST allocates neither
}

// NewFastHTTPHandler returns a handler serving each POST as a session
// whose options b chooses (an *conn.Options gives every session the same
// ones; nil: defaults). opts may be nil; only its Logger and HostPolicy
// are used.
func NewFastHTTPHandler(b conn.Binder, opts *HTTPOptions) *FastHTTPHandler {
	h := &FastHTTPHandler{b: orDefaultBinder(b)}
	if opts != nil {
		h.log, h.policy = opts.Logger, opts.HostPolicy
	}
	h.log = orDiscard(h.log)
	return h
}

// ServeFastHTTP is a fasthttp.RequestHandler.
func (h *FastHTTPHandler) ServeFastHTTP(rc *fasthttp.RequestCtx) {
	if msg := h.refusal(rc); msg != "" {
		writeFast(rc, codec.AppendError(nil, nil, codec.NewError(codec.CodeForbidden, msg)), httpStatus{Code: http.StatusForbidden, RetryAfter: -1})
		return
	}
	if !rc.IsPost() {
		rc.Response.Header.Set("Allow", "POST")
		fastError(rc, http.StatusMethodNotAllowed, msgMethodNotAllowed)
		return
	}
	if !httpjson.IsJSON(string(rc.Request.Header.ContentType())) {
		fastError(rc, http.StatusUnsupportedMediaType, msgUnsupportedMedia)
		return
	}
	if !h.live.enter() {
		rc.SetConnectionClose()
		writeFast(rc, shuttingDown, statusShuttingDown)
		return
	}
	defer h.live.leave()
	remote := rc.RemoteAddr().String()
	opts, err := bindHTTP(h.b, rc, newRawHeader(rc.Request.Header.RawHeaders()), remote, "http")
	if err != nil {
		h.log.Debug("transport: http session refused", "remote", remote, "err", err)
		msg, st := refusalOf(err)
		writeFast(rc, msg, st)
		return
	}
	body := rc.PostBody()
	if len(body) > opts.Limits.MaxFrameBytes {
		rc.SetConnectionClose()
		fastError(rc, http.StatusRequestEntityTooLarge, msgTooLarge)
		return
	}
	// Not rc as the context: fasthttp ends it as soon as a shutdown
	// begins, which would drop the answers of requests running then
	// (Shutdown answers them).
	a, _ := h.answers.Get().(*fastAnswer)
	if a == nil {
		a = &fastAnswer{h: h}
		a.reply = a.write
	}
	a.rc = rc
	if !serveBody(context.Background(), &opts, body, a.reply, &h.live) {
		rc.SetStatusCode(http.StatusNoContent)
	}
	// serveBody has returned: reply is not called any more (its context
	// never ends first).
	a.rc = nil
	h.answers.Put(a)
}

// fastAnswer writes a POST's answer on fasthttp: its reply is bound once,
// so that serving a body allocates no closure (FastHTTPHandler.answers).
type fastAnswer struct {
	h     *FastHTTPHandler
	rc    *fasthttp.RequestCtx            // the POST's; nil while pooled
	reply func(msg []byte, st httpStatus) // write, bound once
}

// write sets msg as the POST's response (writeFast); once Shutdown began,
// the connection ends with it.
func (a *fastAnswer) write(msg []byte, st httpStatus) {
	if a.h.live.stopping.Load() {
		a.rc.SetConnectionClose()
	}
	writeFast(a.rc, msg, st)
}

// Shutdown ends the handler gracefully, as HTTPHandler.Shutdown does: new
// requests are answered 503 with a JSON-RPC -32000 error, those still
// running when ctx is done are answered -32004 with status 503. The
// answers are written once their handlers have returned, which Shutdown
// waits for (at most a second past ctx's deadline); call
// fasthttp.Server.ShutdownWithContext after it, with a context that
// leaves the server a moment to write them. It lets go of the shared
// pool as HTTPHandler.Shutdown does.
func (h *FastHTTPHandler) Shutdown(ctx context.Context) error {
	return h.live.shutdown(ctx)
}

// refusal applies the handler's HostPolicy to rc, as HostPolicy.Allow does
// on net/http: "" when allowed, else the refusal's message. Host and
// Origin are read in place: refusal keeps neither.
func (h *FastHTTPHandler) refusal(rc *fasthttp.RequestCtx) string {
	host := unsafex.String(rc.Host())
	origin := unsafex.String(rc.Request.Header.Peek("Origin"))
	if h.policy.allowedAnywhere(host, origin) {
		return ""
	}
	return h.policy.refusal(host, origin, rc.LocalAddr())
}

// writeFast sets msg as the response with st's status and headers, as
// answer.writeAs does on net/http. fasthttp copies msg.
func writeFast(rc *fasthttp.RequestCtx, msg []byte, st httpStatus) {
	hd := &rc.Response.Header
	hd.SetContentTypeBytes(jsonContentType)
	if st.Code == http.StatusUnauthorized {
		hd.Set("WWW-Authenticate", "Bearer")
	}
	if st.RetryAfter >= 0 {
		hd.Set("Retry-After", strconv.Itoa(st.RetryAfter))
	}
	rc.SetStatusCode(st.Code)
	rc.SetBody(msg)
}

var jsonContentType = []byte("application/json")

// fastError answers status with a JSON-RPC error response without id,
// coded invalid request, as httpjson.Error does on net/http.
func fastError(rc *fasthttp.RequestCtx, status int, msg string) {
	rc.Response.Header.SetContentTypeBytes(jsonContentType)
	rc.SetStatusCode(status)
	rc.SetBody(codec.AppendError(nil, nil, codec.NewError(codec.CodeInvalidRequest, msg)))
}

// NewFastHTTPServer returns a fasthttp.Server serving h with the bounds
// NewHTTPServer sets on net/http (and multipart bodies left unparsed): DefaultHTTPReadTimeout,
// DefaultHTTPWriteTimeout and DefaultHTTPIdleTimeout; a header of up to 8
// KiB (ReadBufferSize); and bodies bounded at the default frame limit
// (codec.DefaultMaxFrameBytes) plus one byte, so that a larger one is
// refused by the server before it is read whole. Change its fields
// before serving (a Binder that raises the frame limit must raise
// MaxRequestBodySize too).
func NewFastHTTPServer(h fasthttp.RequestHandler) *fasthttp.Server {
	return &fasthttp.Server{
		Handler:            h,
		Name:               "mcpwire",
		ReadTimeout:        DefaultHTTPReadTimeout,
		WriteTimeout:       DefaultHTTPWriteTimeout,
		IdleTimeout:        DefaultHTTPIdleTimeout,
		ReadBufferSize:     8 << 10,
		MaxRequestBodySize: codec.DefaultMaxFrameBytes + 1,
		NoDefaultDate:      true,
		// A multipart body (a form a page can send without a preflight)
		// reaches the handler unparsed, to be refused 415 as on net/http.
		DisablePreParseMultipartForm: true,
		ErrorHandler:                 fastRequestError,
	}
}

// fastRequestError answers a request fasthttp could not read, with a
// JSON-RPC error response as HTTPHandler would: 413 for a body over
// MaxRequestBodySize, 400 otherwise, whose message never carries the
// error's text. The connection ends with the answer: what follows a
// request that could not be read is not taken for another.
//
// fasthttp refuses a Content-Length over MaxRequestBodySize before it
// reads any of the body, and has no lingering close of its own: the 413
// is written here, and what the client still sends of the body is
// drained before the connection closes (lingerFast), so that a client
// that writes its whole body before it reads gets the 413 rather than a
// reset, as from HTTPHandler (httpjson.Linger).
func fastRequestError(rc *fasthttp.RequestCtx, err error) {
	rc.SetConnectionClose()
	if errors.Is(err, fasthttp.ErrBodyTooLarge) {
		fastError(rc, http.StatusRequestEntityTooLarge, msgTooLarge)
		lingerFast(rc)
		return
	}
	fastError(rc, http.StatusBadRequest, msgBadRequest)
}
