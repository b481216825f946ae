package mcp

import (
	"context"
	"io"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/mcpwire/mcpwire/cache"
	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/internal/sealed"
	"github.com/mcpwire/mcpwire/internal/session"
	"github.com/mcpwire/mcpwire/router"
)

// DefaultPageSize is how many items a list answer holds, unless
// ServerOptions.PageSize says otherwise.
const DefaultPageSize = 1000

// ServerOptions configure a Server. A nil *ServerOptions gives the
// defaults; NewServer copies the value. A zero field takes its default.
type ServerOptions struct {
	// Instructions tell the client how to use the server (initialize's
	// instructions).
	Instructions string
	// Capabilities are declared on top of what the registered features
	// imply: set Tools, say, to announce tools (and their list changes) to
	// sessions that initialise before the first tool is added.
	Capabilities *ServerCapabilities
	// PageSize bounds the items of one tools/list, resources/list,
	// resources/templates/list or prompts/list answer (default
	// DefaultPageSize).
	PageSize int
	// LogLevel is the least severe level sent to a session that has not
	// set one with logging/setLevel (default LevelInfo).
	LogLevel LoggingLevel
	// CompletionHandler serves completion/complete; setting it declares
	// the completions capability.
	CompletionHandler func(ctx context.Context, req *CompleteRequest) (*CompleteResult, error)
	// InitializedHandler, if set, runs on the pool when a session's client
	// has sent notifications/initialized; it may call the client.
	InitializedHandler func(ctx context.Context, s *ServerSession)
	// RootsListChangedHandler, if set, runs when a client says its roots
	// changed.
	RootsListChangedHandler func(ctx context.Context, s *ServerSession)
	// SubscribeHandler, if set, is asked before a session subscribes to a
	// resource; an error refuses the subscription (a *codec.Error is sent
	// as it is).
	SubscribeHandler func(ctx context.Context, req *SubscribeRequest) error
	// UnsubscribeHandler, if set, is told when a session unsubscribes.
	UnsubscribeHandler func(ctx context.Context, req *SubscribeRequest) error
	// Tasks, if set, serves tools/call as tasks to sessions of 2025-11-25
	// (see the package documentation). Nil: no tasks.
	Tasks *TaskOptions
	// KeepAlive pings each session's client every KeepAlive.Interval once
	// it has sent notifications/initialized, and closes the session when
	// the client stops answering. The zero value sends no pings.
	KeepAlive KeepAlive
	// Caching sets the cache hints (ttlMs, cacheScope) of the results of
	// protocol version 2026-07-28 that a client may cache: lists, reads
	// and server/discover. Nil: every one is fresh for no time and
	// private.
	Caching *CachingOptions
	// ResponseCache, if set, keeps the results of 2026-07-28 requests to
	// the cacheable methods whose hint (Caching) is public and fresh for
	// some time, for that time, and answers identical requests from it;
	// private results, and those of the older versions, are never kept
	// (see the package documentation, "Caching"). It may serve other
	// methods too (router.MethodOptions.Cache), but not another Server:
	// entries are keyed by method name and params alone.
	ResponseCache *cache.Cache
	// RequestState configures the sealing of the requestState of
	// multi-round-trip requests (2026-07-28): keys, rotation overlap,
	// lifetime and size. Nil: a key drawn at random, the default lifetime
	// and bound. NewServer panics if it is invalid (see
	// RequestStateOptions.Validate).
	RequestState *RequestStateOptions
	// MethodScopes are the OAuth scopes a caller's access token must grant
	// to call a method (e.g. "tools/list", "logging/setLevel"), checked
	// before its handler runs, on top of those its feature declares
	// (Tool.Scopes…): see Server.RequiredScopes. It is copied.
	MethodScopes map[string][]string
	// ToolScopes are more scopes tools/call of a tool needs, by the tool's
	// name, on top of its Tool.Scopes: for scopes a deployment configures
	// (a command-line flag, say) where the tools are registered by code
	// that does not know them. It is copied.
	ToolScopes map[string][]string
	// SessionState, if set, shares what a session sets after initialize
	// (its log level and resource subscriptions) between the copies that
	// instances of the server sharing a session store hold of it (see
	// SharedSession): a change is saved when a request makes it, a copy
	// re-created on another instance loads it, and the other copies load
	// it again when told. A store that fails is logged and the change
	// holds on the copy that made it. Nil: each copy keeps its own.
	SessionState SessionStateStore
	// Broadcast, if set, carries ResourceUpdated and the changes of the
	// lists to the other instances of the server, whose sessions that
	// want them are told as this server's are. A failure to publish is
	// logged; this server's sessions are told anyway. Nil: this server's
	// sessions only.
	Broadcast Broadcast
	// Conn is the base of every session's connection options (pool,
	// limits, timeouts, logger, parent context, close callback); nil: the
	// conn defaults. The server sets the router, the cancellation policy
	// (CancelSilent, as MCP requires) and the batch policy itself. Without
	// a pool, handlers that are not inline run on goroutines the server's
	// sessions share, never fewer than the handlers running. Under
	// Overload pool.Block (the default), a session whose handlers wait on
	// the client (sampling, elicitation) answers a request that finds
	// MaxInFlight full with -32000 instead of stopping reading, since the
	// answers they wait for come in through the same stream.
	Conn *conn.Options
}

// Server is an MCP server: the tools, resources, prompts and handlers it
// offers, served to any number of sessions. Features may be added and
// removed at any time; sessions are told (notifications/…/list_changed).
// Safe for concurrent use.
type Server struct {
	impl   Implementation
	info   []byte        // impl encoded: the serverInfo of stateless results
	head   []byte        // statelessHead(info)
	hints  hints         // the cache hints of stateless results (Caching)
	cache  *cache.Method // ResponseCache's, nil without one
	opts   ServerOptions
	conn   conn.Options // base options of each session
	log    *slog.Logger
	router *router.Router
	tasks  *TaskOptions // nil: no tasks
	// extTasks are the running tasks of the tasks extension (2026-07-28),
	// which belong to no session; nil without tasks.
	extTasks *sessionTasks
	states   *sealed.Ring // seals requestState
	// protocol holds the names of the methods the server itself serves;
	// written by NewServer only.
	protocol map[string]struct{}

	tools     registry[*serverTool]
	resources registry[*serverResource]
	templates registry[*serverTemplate]
	prompts   registry[*serverPrompt]

	// paramHeaders is set once a tool with x-mcp-header parameters is
	// added, and never cleared: until then ParamHeaders need not look.
	paramHeaders atomic.Bool

	sessions session.Registry[*ServerSession, *ServerSession] // initialised and open

	mu        sync.Mutex
	subs      map[string]map[*ServerSession]struct{} // resource URI → subscribers
	listeners map[*listener]struct{}                 // open subscriptions/listen requests, under mu

	bounded session.Quota // sessions of the transports that bound them (SessionQuota)

	// What the server shares with other instances (shared.go); unused
	// without ServerOptions.SessionState and Broadcast.
	origin      string                                 // names the server among them
	copies      map[string]map[*ServerSession]struct{} // shared sessions by id, under mu
	stateWatch  *watch                                 // of SessionState, nil without
	noticeWatch *watch                                 // of Broadcast, nil without
	bcast       broadcasting

	scoped atomic.Bool // a feature or method declares scopes: requests are checked
}

// NewServer returns a server that introduces itself as impl (nil: a
// nameless one) and serves nothing until features are added. It panics
// if opts.RequestState is invalid (RequestStateOptions.Validate).
func NewServer(impl *Implementation, opts *ServerOptions) *Server {
	s := &Server{
		router:   router.New(),
		protocol: map[string]struct{}{},
		subs:     map[string]map[*ServerSession]struct{}{},
	}
	if impl != nil {
		s.impl = *impl
	}
	if opts != nil {
		s.opts = *opts
		s.opts.MethodScopes = maps.Clone(opts.MethodScopes)
		s.opts.ToolScopes = maps.Clone(opts.ToolScopes)
		for _, m := range []map[string][]string{s.opts.MethodScopes, s.opts.ToolScopes} {
			for _, sc := range m {
				s.noteScopes(sc)
			}
		}
	}
	if b, err := codec.AppendValue(nil, &s.impl); err == nil {
		s.info = b
	} else { // a value sonic cannot encode: invalid UTF-8 in a name, say
		s.info = []byte(`{"name":"","version":""}`)
	}
	s.head = statelessHead(s.info)
	s.hints = newHints(s.opts.Caching)
	if s.opts.ResponseCache != nil {
		s.cache = s.opts.ResponseCache.Method(0) // each entry lives its result's ttl
	}
	if s.opts.PageSize <= 0 {
		s.opts.PageSize = DefaultPageSize
	}
	if !s.opts.LogLevel.Valid() {
		s.opts.LogLevel = LevelInfo
	}
	var err error
	if s.states, err = s.opts.RequestState.ring(); err != nil {
		panic("mcp: ServerOptions.RequestState: " + err.Error())
	}
	if s.opts.Tasks != nil {
		s.tasks = s.opts.Tasks.withDefaults()
		s.extTasks = &sessionTasks{running: map[string]*runningTask{}}
	}
	if s.opts.Conn != nil {
		s.conn = *s.opts.Conn
	}
	s.log = s.conn.Logger
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	s.share()
	s.tools.init(func() { s.dropCached("tools/list"); s.listChanged(changedTools) })
	s.resources.init(func() { s.dropCached("resources/list", "resources/read"); s.listChanged(changedResources) })
	s.templates.init(func() { s.dropCached("resources/templates/list", "resources/read"); s.listChanged(changedResources) })
	s.prompts.init(func() { s.dropCached("prompts/list"); s.listChanged(changedPrompts) })
	s.registerProtocol()
	return s
}

type sessionKey struct{}

// SessionFromContext returns the session a handler's context belongs to,
// or nil. Custom methods (AddMethod) use it to reach their session.
func SessionFromContext(ctx context.Context) *ServerSession {
	s, _ := ctx.Value(sessionKey{}).(*ServerSession)
	return s
}

// Bind makes Server a conn.Binder: each new connection (from a
// transport.Server, say) becomes a session of its own, with the server's
// router and the base options of ServerOptions.Conn.
func (s *Server) Bind(ctx context.Context, p *conn.Peer) (*conn.Options, error) {
	ss := newServerSession(s)
	o := s.conn
	o.Router = s.router
	o.Cancel = conn.CancelSilent
	o.RefuseBatches = true // until a version that has them is negotiated
	if p != nil {
		o.Peer = *p
	}
	parent := o.Context
	if parent == nil {
		parent = context.Background()
	}
	o.Context = context.WithValue(parent, sessionKey{}, ss)
	userClose := o.OnClose
	o.OnClose = func(c *conn.Conn, err error) {
		s.drop(ss, err)
		if userClose != nil {
			userClose(c, err)
		}
	}
	return &o, nil
}

// Connect starts a session on a message stream (conn.NewMessageStream,
// conn.Pipe, or a transport's own) and returns it. A nil stream makes a
// session served only through its connection's ServeBody (an HTTP
// transport's). The session ends when the stream does, or on Close.
func (s *Server) Connect(ctx context.Context, stream conn.Stream) (*ServerSession, error) {
	return s.ConnectTransport(ctx, stream, &conn.Peer{Transport: "stream"}, nil)
}

// ConnectTransport starts a session on stream for peer, as Connect does,
// for a transport that serves the session message by message: t, if not
// nil, is its hook into the session (see SessionTransport), set before
// the first message is served and told when the session ends.
func (s *Server) ConnectTransport(ctx context.Context, stream conn.Stream, peer *conn.Peer, t SessionTransport) (*ServerSession, error) {
	o, err := s.Bind(ctx, peer)
	if err != nil {
		return nil, err
	}
	ss := SessionFromContext(o.Context)
	ss.transport = t
	ss.nameTasks(t)
	ss.setConn(conn.NewStream(stream, o))
	return ss, nil
}

// Logger returns the logger of ServerOptions.Conn, or one that discards
// everything when none was given.
func (s *Server) Logger() *slog.Logger { return s.log }

// Limits returns the limits every session of the server starts with
// (ServerOptions.Conn's, the codec defaults filling what is unset).
func (s *Server) Limits() codec.Limits { return s.conn.Limits.WithDefaults() }

// Run serves one session on a byte stream framed by ServerOptions.Conn's
// framing (newline-delimited by default: MCP's stdio transport, e.g.
// transport.NewStdio()) until the stream ends or ctx is done, when the
// session is shut down gracefully. It returns why the session ended.
func (s *Server) Run(ctx context.Context, rwc io.ReadWriteCloser) error {
	o, err := s.Bind(ctx, &conn.Peer{Transport: "stdio"})
	if err != nil {
		rwc.Close()
		return err
	}
	ss := SessionFromContext(o.Context)
	c := conn.New(rwc, o)
	ss.setConn(c)
	select {
	case <-ss.Done():
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
		_ = c.Shutdown(sctx)
		cancel()
	}
	return ss.Wait()
}

// Sessions returns the sessions initialised and still open, in no
// particular order.
func (s *Server) Sessions() []*ServerSession {
	return slices.Collect(s.sessions.All())
}

// track adds an initialised session. It runs before the session's
// connection ends (from initialize, on that connection), so before drop;
// the registry is never closed and has no limits, so Add cannot fail.
func (s *Server) track(ss *ServerSession) {
	_ = s.sessions.Add(ss, ss, nil)
}

// drop forgets a session that has ended, and its subscriptions.
func (s *Server) drop(ss *ServerSession, why error) {
	ss.closed.Store(true)
	s.sessions.Remove(ss, ss)
	s.mu.Lock()
	for uri := range ss.subs {
		s.unsubscribeLocked(ss, uri)
	}
	s.leaveSharedLocked(ss)
	s.mu.Unlock()
	s.closeTasks(ss)
	if f := ss.failure.Load(); f != nil {
		why = *f
	}
	ss.err = why
	close(ss.done)
	if ss.transport != nil {
		ss.transport.SessionEnded()
	}
}
