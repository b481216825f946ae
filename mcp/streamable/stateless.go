package streamable

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/internal/httpjson"
	"github.com/mcpwire/mcpwire/internal/reqmeta"
	"github.com/mcpwire/mcpwire/mcp"
)

// A POST of a stateless protocol version (mcp.StatelessVersions: 2026-07-28)
// is served on its own: no session, no initialize. Its body must be one
// request or notification, whose headers mirror it (checkHeaders). It is
// served by the one connection the handler keeps for them (statelessHome),
// through which package mcp serves each request by a ServerSession made
// from the request's _meta: nothing of the client's outlives the POST, so
// any instance of a server can answer any such request. The answer is
// JSON, or an event stream of the request's own (statelessAnswer).

// isStateless reports whether a POST is of a stateless protocol version:
// its MCP-Protocol-Version header names one, or, when it names no
// session, its body's _meta names a protocol version (which the handler
// then checks against the header). It returns the header's lines too,
// for checkHeaders.
func isStateless(r *http.Request, body []byte) ([]string, bool) {
	versions := r.Header[headerVersion] // canonical: see fieldOf
	if len(versions) > 0 && mcp.IsStatelessVersion(versions[0]) {
		return versions, true
	}
	return versions, fieldOf(r.Header, headerSession) == "" && bytes.Contains(body, metaVersionKey)
}

// statelessHome is the connection stateless requests are served through:
// a session of the server's that is never initialised, has no stream
// (what is sent on it outside a POST's answer fails), and lives as long
// as the handler — or, if a request's handler closes its session (which
// closes the home's), until the next stateless POST starts another. Safe
// for concurrent use.
type statelessHome struct {
	mu     sync.Mutex
	ss     atomic.Pointer[mcp.ServerSession]
	closed bool
}

// errHomeClosed is what conn returns once the handler is closed.
var errHomeClosed = errors.New("streamable: handler closed")

// conn returns the home's connection, starting it on first use and after
// it ended.
func (sh *statelessHome) conn(srv *mcp.Server) (*conn.Conn, error) {
	if ss := sh.ss.Load(); ss != nil && live(ss) {
		return ss.Conn(), nil
	}
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if sh.closed {
		return nil, errHomeClosed
	}
	if ss := sh.ss.Load(); ss != nil && live(ss) {
		return ss.Conn(), nil
	}
	ss, err := srv.ConnectTransport(context.Background(), nil, &conn.Peer{Transport: "http"}, homeTransport{})
	if err != nil {
		return nil, err
	}
	sh.ss.Store(ss)
	return ss.Conn(), nil
}

// live reports whether ss has not ended.
func live(ss *mcp.ServerSession) bool {
	select {
	case <-ss.Done():
		return false
	default:
		return true
	}
}

// shutdown ends the home gracefully: its running requests' handlers get
// until ctx ends to finish (conn.Conn.Shutdown), and later stateless
// POSTs are refused (503).
func (sh *statelessHome) shutdown(ctx context.Context) error {
	if c := sh.stop(); c != nil {
		return c.Shutdown(ctx)
	}
	return nil
}

// close ends the home at once: its running requests are cancelled.
func (sh *statelessHome) close() {
	if c := sh.stop(); c != nil {
		c.Close()
	}
}

// stop refuses later stateless POSTs and returns the connection, if any.
func (sh *statelessHome) stop() *conn.Conn {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	sh.closed = true
	if ss := sh.ss.Load(); ss != nil {
		return ss.Conn()
	}
	return nil
}

// homeTransport is the home session's mcp.SessionTransport: it has no
// stream of its own to close or to ping on.
type homeTransport struct{}

func (homeTransport) CloseStream([]byte) bool    { return false }
func (homeTransport) SessionEnded()              {}
func (homeTransport) PingSink() func(msg []byte) { return nil }

// statelessPost serves a POST of a stateless protocol version; body is
// valid until it returns.
func (h *Handler) statelessPost(w http.ResponseWriter, r *http.Request, body []byte, versions []string, wantJSON, wantSSE bool) {
	m, n, err := h.scan.first(body)
	switch {
	case err != nil:
		parseError(w)
		return
	case n != 1:
		httpjson.Error(w, http.StatusBadRequest, codec.CodeInvalidRequest,
			"Bad Request: under protocol version "+mcp.Version20260728+" a body holds one request or notification, not a batch")
		return
	case m.Kind == codec.KindResult || m.Kind == codec.KindError:
		httpjson.Error(w, http.StatusBadRequest, codec.CodeInvalidRequest,
			"Bad Request: under protocol version "+mcp.Version20260728+" a client sends no responses")
		return
	}
	c, err := h.home.conn(h.srv)
	if err != nil {
		h.homeFailed(w, err)
		return
	}
	asJSON := wantJSON && (h.opts.JSONResponse || !wantSSE)
	here := false // the handler may run on this goroutine (conn.BodySink.Here)
	switch m.Kind {
	case codec.KindNotification:
		// notifications/cancelled names a request by an id that only its
		// client's stream would tell apart: a closed stream cancels instead.
		if !isMethod(&m, "notifications/cancelled") {
			_ = c.ServeBodySink(r.Context(), body, conn.BodySink{RemoteAddr: r.RemoteAddr})
		}
		w.WriteHeader(http.StatusAccepted)
		return
	case codec.KindRequest:
		var view reqmeta.View
		if codec.KindOf(m.Params) == codec.ValueObject {
			view.Read(m.Params)
		}
		if e := checkHeaders(r.Header, versions, &m, &view, h.srv); e != nil {
			writeStatelessAnswer(w, codec.AppendError(nil, m.ID, e), nil)
			return
		}
		// Nothing its handler sends has to reach the client before the
		// answer: no stream carries it (asJSON), or the request asked for
		// no progress and no log messages; and a handler of a stateless
		// version never waits on the client (its questions are input
		// requests in its result). subscriptions/listen is a stream.
		quiet := view.Whole && view.Progress == nil && view.LogLevel == nil
		here = (asJSON || quiet) && !isMethod(&m, "subscriptions/listen")
	}
	h.serveStateless(w, r, c, body, &m, asJSON, !wantJSON, here)
}

// homeFailed answers a stateless POST for which the home connection
// could not be had (statelessHome.conn's err).
func (h *Handler) homeFailed(w http.ResponseWriter, err error) {
	if errors.Is(err, errHomeClosed) {
		refuseShutdown(w)
		return
	}
	h.log.Error("mcp: starting the stateless connection", "err", err)
	httpjson.Error(w, http.StatusInternalServerError, codec.CodeInternalError, "Internal error: the request could not be served")
}

// first scans body and returns its first message, valid as long as body
// is, and how many it holds (a batch: its length, 0 for []).
func (b *bodyScanner) first(body []byte) (codec.Message, int, error) {
	sc, _ := b.scanners.Get().(*codec.Scanner)
	if sc == nil {
		sc = codec.NewScanner(&b.limits)
	}
	defer b.scanners.Put(sc)
	msgs, batch, err := sc.Scan(body)
	if err != nil || len(msgs) == 0 {
		return codec.Message{}, 0, err
	}
	if batch {
		return msgs[0], max(len(msgs), 2), nil // even one element is a batch
	}
	return msgs[0], 1, nil
}

// statelessRefused answers a GET or DELETE of a stateless protocol
// version: the version has no standalone stream and no session to end.
func statelessRefused(w http.ResponseWriter) {
	w.Header().Set("Allow", "POST")
	httpjson.Error(w, http.StatusMethodNotAllowed, codec.CodeInvalidRequest,
		"Method not allowed: protocol version "+mcp.Version20260728+" has no sessions and no standalone stream (POST only)")
}
