package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/conn"
)

// shutdownTimeout bounds the graceful end of a session Run was serving.
const shutdownTimeout = 5 * time.Second

// The states of a session.
const (
	stateNew          int32 = iota // waiting for initialize
	stateInitializing              // initialize answered; notifications/initialized not yet seen
	stateInitialized               // the client sent notifications/initialized
)

// ServerSession is one client's session with a Server: its negotiated
// protocol version, the client's identity and capabilities, its log level
// and subscriptions, and the connection it runs on. Everything about a
// session is kept here, never in globals, so a server serves sessions of
// different versions side by side. A request of a stateless version
// (2026-07-28) has a ServerSession of its own, made from its _meta (see
// the package documentation). Safe for concurrent use.
type ServerSession struct {
	srv   *Server
	c     atomic.Pointer[conn.Conn]
	state atomic.Int32
	level atomic.Int32 // least severity sent by Log
	// closed is set once the connection has ended; done is closed after
	// the session has been forgotten, err is why it ended.
	closed atomic.Bool
	noting atomic.Bool   // a goroutine is sending the notes
	notes  atomic.Uint32 // list_changed notifications due (changed… bits)
	vlevel level         // of version (below): here, where it costs no padding
	done   chan struct{}
	err    error
	// failure, if set before the connection is closed, is why the session
	// ended in place of the connection's own reason (ErrPingTimeout).
	failure atomic.Pointer[error]

	// Set by initialize under mu, before state leaves stateNew; read-only
	// afterwards.
	mu      sync.Mutex
	version string
	// Pointers, nil when there is none: a stateless request's session
	// (statelessSession) is allocated for each request, and most have
	// neither client info nor capabilities to keep. caps is what the
	// server declared to this client: nil under a stateless version.
	clientInfo *Implementation
	clientCaps *ClientCapabilities
	caps       *ServerCapabilities

	subs map[string]struct{} // resource URIs subscribed; under srv.mu
	// shared, set by initialize, ties the session to its copies on other
	// instances (ServerOptions.SessionState); nil otherwise.
	shared *sharedState

	// transport is the hook of the transport serving the session (HTTP),
	// set before its first message is served; nil on a plain stream.
	transport SessionTransport

	tasks *sessionTasks // nil when the server has no tasks

	// home, if set, is the session of the connection a request of a
	// stateless version came on, and this session serves that request
	// alone (see statelessSession).
	home *ServerSession
	// round, set with home, is the run of that request's handler; on
	// when its method may answer input_required (see inputRound).
	round *inputRound
	// out, set with home, is room for the request's result
	// (ServerSession.result) in the session's allocation.
	out *statelessResult
	// ext, set with home, ties the session to the tasks extension
	// (2026-07-28): nil but for a task's tool or a handler that called
	// StartTask.
	ext *extRun
}

// SessionTransport is the hook of a transport that serves a session
// message by message rather than on one stream (Streamable HTTP, package
// mcp/streamable): given to Server.ConnectTransport, it lets the session
// reach what only the transport knows. Such a transport serves each
// message it receives with the session's connection (conn.Conn.ServeBody
// or ServeBodySink, through ServerSession.Conn) and learns whether the
// session is initialized (ServerSession.Initialized) and which version it
// speaks (ServerSession.ProtocolVersion); ServerSession.Close ends it. Its
// methods must be safe for concurrent use.
//
// A transport whose session's context does not carry each request's
// principal, but that checks each request's scopes itself before serving
// it (Server.RequiredScopes), says so with a method ChecksScopes() bool
// returning true: the server then does not check them again.
type SessionTransport interface {
	// CloseStream ends the response carrying the stream of the request
	// with this id (its JSON bytes, as received), leaving the stream
	// resumable; it reports whether there was one
	// (ServerRequest.CloseSSEStream).
	CloseStream(id []byte) bool
	// SessionEnded is called once, after the session has ended and the
	// server has forgotten it, whoever ended it.
	SessionEnded()
	// PingSink returns where a keep-alive ping goes now (a stream a
	// response holds open), or nil when no stream reaches the client
	// (then no ping is sent, and none is missed).
	PingSink() func(msg []byte)
}

func newServerSession(s *Server) *ServerSession {
	ss := &ServerSession{srv: s, done: make(chan struct{})}
	ss.level.Store(s.opts.LogLevel.severity())
	if s.tasks != nil {
		key, err := newTaskID()
		if err != nil {
			panic("mcp: crypto/rand failed: " + err.Error())
		}
		ss.tasks = &sessionTasks{key: key, running: map[string]*runningTask{}}
	}
	return ss
}

func (ss *ServerSession) setConn(c *conn.Conn) { ss.c.CompareAndSwap(nil, c) }

// Conn returns the connection the session runs on: to serve bodies
// (ServeBody), shut it down or wait for its end. It is nil until the
// session's first request when the session came from Bind.
func (ss *ServerSession) Conn() *conn.Conn { return ss.c.Load() }

// Close ends the session at once.
func (ss *ServerSession) Close() error {
	if c := ss.c.Load(); c != nil {
		return c.Close()
	}
	return nil
}

// Shutdown ends the session gracefully (conn.Conn.Shutdown): it stops
// reading, and its running requests are waited for until ctx is done.
func (ss *ServerSession) Shutdown(ctx context.Context) error {
	if c := ss.c.Load(); c != nil {
		return c.Shutdown(ctx)
	}
	return nil
}

// Wait blocks until the session has ended and the server has forgotten it
// (its subscriptions gone), and returns why it ended (nil: a clean end).
func (ss *ServerSession) Wait() error {
	if ss.home != nil {
		return ss.home.Wait()
	}
	<-ss.done
	return ss.err
}

// Done is closed once the session has ended and the server has forgotten
// it.
func (ss *ServerSession) Done() <-chan struct{} { return ss.done }

// Initialized reports whether initialize has been answered.
func (ss *ServerSession) Initialized() bool { return ss.initialized() }

// initialized reports whether initialize has been answered.
func (ss *ServerSession) initialized() bool { return ss.state.Load() >= stateInitializing }

// ProtocolVersion returns the version negotiated at initialize ("" before),
// or for a request of a stateless version the one its _meta names.
func (ss *ServerSession) ProtocolVersion() string {
	if !ss.initialized() {
		return ""
	}
	return ss.version
}

// ClientInfo returns the client's clientInfo (nil before initialize), or
// for a request of a stateless version its _meta's (empty when it gave
// none).
func (ss *ServerSession) ClientInfo() *Implementation {
	if !ss.initialized() {
		return nil
	}
	var ci Implementation
	if ss.clientInfo != nil {
		ci = *ss.clientInfo
	}
	return &ci
}

// ClientCapabilities returns what the client declared (nil before
// initialize), or for a request of a stateless version what its _meta
// declares. The result is shared: do not modify it.
func (ss *ServerSession) ClientCapabilities() *ClientCapabilities {
	if !ss.initialized() {
		return nil
	}
	if ss.clientCaps == nil { // declared nothing
		return new(ClientCapabilities)
	}
	return ss.clientCaps
}

// Errors of the calls a session makes to its client.
var (
	// ErrNotConnected is returned by calls on a session that has no
	// connection yet.
	ErrNotConnected = errors.New("mcp: session not connected")
	// ErrNotSupported is returned by a call the client did not declare the
	// capability for (sampling, elicitation, roots).
	ErrNotSupported = errors.New("mcp: the client does not support this request")
)

// call sends a request to the client and decodes its result. A call
// abandoned by ctx is cancelled at the client with
// notifications/cancelled. A call (but ping) from a tool running as a
// task carries the related-task _meta, and the task is input_required
// until it is answered.
func (ss *ServerSession) call(ctx context.Context, method string, params, result any) error {
	c := ss.c.Load()
	if c == nil {
		return ErrNotConnected
	}
	if ss.stateless() {
		return ss.ask(ctx, method, params, result)
	}
	if ss.tasks != nil && method != "ping" {
		if tc := taskOf(ctx, ss); tc != nil {
			params = withRelatedTask(params, tc.id)
			defer tc.awaitInput(ctx, method)()
		}
	}
	raw, err := c.CallRaw(ctx, method, params)
	var ce *conn.CanceledCallError
	if errors.As(err, &ce) {
		_ = c.Notify(context.WithoutCancel(ctx), "notifications/cancelled",
			&CancelledParams{RequestID: json.RawMessage(ce.ID), Reason: ce.Err.Error()})
	}
	if err != nil || result == nil {
		return err
	}
	return codec.UnmarshalExact(raw, result)
}

// ask is call under a stateless version: the request to the client
// becomes an input request of the request ss serves, if its method may
// answer input_required, or of the task ss runs.
func (ss *ServerSession) ask(ctx context.Context, method string, params, result any) error {
	if ti := ss.taskIn(); ti != nil && methodCode(method) != 0 {
		return ti.ask(ctx, []ask{{method: method, params: params}}, []any{result})
	}
	if ss.round == nil || !ss.round.on || methodCode(method) == 0 {
		return errStatelessCall
	}
	ok, err := ss.round.ask("", method, params, result)
	if err == nil && !ok {
		err = ErrInputRequired
	}
	return err
}

// notify sends a notification to the client.
func (ss *ServerSession) notify(ctx context.Context, method string, params any) error {
	c := ss.c.Load()
	if c == nil {
		return ErrNotConnected
	}
	return c.Notify(ctx, method, params)
}

// Ping checks that the client answers.
func (ss *ServerSession) Ping(ctx context.Context) error {
	return ss.call(ctx, "ping", nil, nil)
}

// ListRoots asks the client for its roots (roots/list). It fails with
// ErrNotSupported when the client did not declare roots. Under
// 2026-07-28 it asks through the request ss serves (see
// ServerRequest.Roots), and fails with ErrInputRequired until the client
// has answered.
func (ss *ServerSession) ListRoots(ctx context.Context) (*ListRootsResult, error) {
	if err := ss.rootsAllowed(); err != nil {
		return nil, err
	}
	return callFor[ListRootsResult](ctx, ss, "roots/list", nil)
}

// callFor is ss.call decoding the result into a new R.
func callFor[R any](ctx context.Context, ss *ServerSession, method string, params any) (*R, error) {
	var r R
	if err := ss.call(ctx, method, params, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// rootsAllowed returns the error of roots/list when the client did not
// declare roots, or nil.
func (ss *ServerSession) rootsAllowed() error {
	if cc := ss.ClientCapabilities(); cc == nil || cc.Roots == nil {
		return ss.lacks(&ClientCapabilities{Roots: &RootsCapability{}}, ErrNotSupported)
	}
	return nil
}

// ErrInvalidLevel is returned by Log for a level that is not one of the
// eight.
var ErrInvalidLevel = errors.New("mcp: invalid logging level")

// LogLevel returns the least severe level Log sends to the session: the
// one it set with logging/setLevel (on any instance's copy of it, under
// ServerOptions.SessionState), else ServerOptions.LogLevel.
func (ss *ServerSession) LogLevel() LoggingLevel {
	return levelOfSeverity(ss.level.Load())
}

// Log sends a log message (notifications/message) if its level is at
// least the session's (logging/setLevel, else ServerOptions.LogLevel).
// Messages below it are dropped without error.
func (ss *ServerSession) Log(ctx context.Context, p *LoggingMessageParams) error {
	sev := p.Level.severity()
	if sev == 0 {
		return ErrInvalidLevel
	}
	if sev < ss.level.Load() {
		return nil
	}
	return ss.notify(ctx, "notifications/message", p)
}

// keepAlivePing implements pinger: a ping on the session's stream, or,
// over Streamable HTTP, on a stream a response holds open (none: nothing
// is sent).
func (ss *ServerSession) keepAlivePing(ctx context.Context) (bool, error) {
	c := ss.c.Load()
	if c == nil {
		return false, nil
	}
	if t := ss.transport; t != nil {
		sink := t.PingSink()
		if sink == nil {
			return false, nil
		}
		ctx = c.WithSink(ctx, sink)
	}
	return true, ss.call(ctx, "ping", nil, nil)
}

// keepAliveFailed implements pinger: the session is closed, and Wait
// returns ErrPingTimeout.
func (ss *ServerSession) keepAliveFailed(missed int, last error) {
	attrs := []any{"client", ss.ClientInfo().Name}
	if c := ss.c.Load(); c != nil {
		p := c.Peer()
		attrs = append(attrs, "transport", p.Transport, "addr", p.Addr)
	}
	logKeepAliveFailure(ss.srv.log, ss.srv.opts.KeepAlive, missed, last, attrs...)
	err := ErrPingTimeout
	ss.failure.Store(&err)
	_ = ss.Close()
}
