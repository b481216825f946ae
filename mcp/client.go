package mcp

import (
	"cmp"
	"context"
	"errors"
	"io"
	"log/slog"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/router"
)

// ClientOptions configure a Client. A nil *ClientOptions gives the
// defaults; NewClient copies the value.
type ClientOptions struct {
	// ProtocolVersion is the version the session speaks (default
	// DefaultClientVersion, 2026-07-28). One of SupportedVersions is asked for at
	// initialize, and the session accepts any of them the server
	// answers with. A stateless one (Version20260728) has no initialize:
	// the session asks server/discover, and each request carries the
	// version, Capabilities and the client's identity in _meta; a server
	// that answers server/discover with an error other than those of
	// the stateless versions (-32020, -32021, -32022), or with a result
	// whose supportedVersions lacks the version, is an older one, and
	// the session falls back to initialize (with a version of
	// SupportedVersions the answer lists, else LatestVersion). A -32022
	// that lists another stateless version is followed once.
	ProtocolVersion string
	// Capabilities are declared on top of what the handlers below imply
	// (sampling, elicitation, roots).
	Capabilities *ClientCapabilities
	// CreateMessageHandler serves sampling/createMessage; setting it
	// declares sampling.
	CreateMessageHandler func(ctx context.Context, req *CreateMessageRequest) (*CreateMessageResult, error)
	// ElicitationHandler serves form mode elicitation/create; setting it
	// declares elicitation (as {}, form mode, when URLElicitationHandler
	// is not set). It also serves URL mode requests when the client
	// declared URL mode through Capabilities and URLElicitationHandler is
	// not set.
	ElicitationHandler func(ctx context.Context, req *ElicitRequest) (*ElicitResult, error)
	// URLElicitationHandler serves URL mode elicitation/create
	// (2025-11-25): it asks the user's consent, opens req.Params.URL and
	// answers accept, or decline or cancel. Setting it declares
	// elicitation.url. Requests of a mode the client did not declare, or
	// that break the mode's rules, are answered -32602 without a handler
	// seeing them.
	URLElicitationHandler func(ctx context.Context, req *ElicitRequest) (*ElicitResult, error)
	// ElicitationCompleteHandler receives notifications/elicitation/complete
	// for the URL mode elicitations the session knows and has not seen
	// complete: those its URLElicitationHandler accepted and those of the
	// -32042 errors (URLElicitations) its calls received. Others are
	// ignored, as the specification asks; but a completion that overtakes
	// the error naming its elicitation (read first, while the error is on
	// its way to the caller) is passed on when the error arrives, on the
	// caller's goroutine.
	ElicitationCompleteHandler func(ctx context.Context, s *ClientSession, p *ElicitationCompleteParams)
	// RootsHandler serves roots/list; setting it declares roots (with
	// listChanged: tell servers with ClientSession.NotifyRootsListChanged).
	RootsHandler func(ctx context.Context, s *ClientSession) (*ListRootsResult, error)
	// LoggingMessageHandler receives notifications/message.
	LoggingMessageHandler func(ctx context.Context, s *ClientSession, p *LoggingMessageParams)
	// ProgressHandler receives notifications/progress.
	ProgressHandler func(ctx context.Context, s *ClientSession, p *ProgressParams)
	// TaskStatusHandler receives notifications/tasks/status: a task's new
	// status (2025-11-25).
	TaskStatusHandler func(ctx context.Context, s *ClientSession, p *Task)
	// ResourceUpdatedHandler receives notifications/resources/updated.
	ResourceUpdatedHandler func(ctx context.Context, s *ClientSession, p *ResourceUpdatedParams)
	// ToolListChangedHandler, ResourceListChangedHandler and
	// PromptListChangedHandler receive the server's list_changed
	// notifications. (The session forgets the output schemas of the
	// tools it listed on notifications/tools/list_changed, and the list
	// results it keeps under a stateless version on each, with or
	// without a handler.)
	ToolListChangedHandler     func(ctx context.Context, s *ClientSession)
	ResourceListChangedHandler func(ctx context.Context, s *ClientSession)
	PromptListChangedHandler   func(ctx context.Context, s *ClientSession)
	// KeepAlive pings the server every KeepAlive.Interval once the
	// handshake is done, and closes the session when the server stops
	// answering (see KeepAlive). The zero value sends no pings; neither
	// does a session of a stateless version, which has no ping.
	KeepAlive KeepAlive
	// Conn is the base of every session's connection options (pool,
	// limits, logger…). The client sets the router and the cancellation
	// policy.
	Conn *conn.Options
}

// Requests a client's handlers see.
type (
	// ClientRequest is a server's request as a client handler sees it.
	ClientRequest[P any] struct {
		Session *ClientSession
		Params  P
	}
	// CreateMessageRequest is a sampling/createMessage.
	CreateMessageRequest = ClientRequest[*CreateMessageParams]
	// ElicitRequest is an elicitation/create.
	ElicitRequest = ClientRequest[*ElicitParams]
)

// Client is an MCP client: who it is, what it can do for servers, and its
// handlers. It connects to any number of servers, one ClientSession each.
// Safe for concurrent use.
type Client struct {
	impl   Implementation
	opts   ClientOptions
	caps   ClientCapabilities
	router *router.Router
	log    *slog.Logger // ClientOptions.Conn's, else discard
	sendingChain
}

// NewClient returns a client that introduces itself as impl.
func NewClient(impl *Implementation, opts *ClientOptions) *Client {
	c := &Client{router: router.New()}
	if impl != nil {
		c.impl = *impl
	}
	if opts != nil {
		c.opts = *opts
	}
	c.log = slog.New(slog.DiscardHandler)
	if o := c.opts.Conn; o != nil && o.Logger != nil {
		c.log = o.Logger
	}
	if c.opts.ProtocolVersion == "" {
		c.opts.ProtocolVersion = DefaultClientVersion
	}
	if o := c.opts.Capabilities; o != nil {
		c.caps = *o
	}
	if c.opts.CreateMessageHandler != nil && c.caps.Sampling == nil {
		c.caps.Sampling = &SamplingCapability{}
	}
	if c.caps.Elicitation == nil {
		c.caps.Elicitation = elicitationCapability(&c.opts)
	}
	if c.opts.RootsHandler != nil && c.caps.Roots == nil {
		c.caps.Roots = &RootsCapability{ListChanged: true}
	}
	c.registerHandlers()
	return c
}

type clientSessionKey struct{}

func clientSessionFrom(ctx context.Context) *ClientSession {
	s, _ := ctx.Value(clientSessionKey{}).(*ClientSession)
	return s
}

// clientMethod adapts f to a router.Handler: it finds the session and
// decodes the params case-sensitively.
func clientMethod[P any](f func(ctx context.Context, s *ClientSession, p *P) (any, error)) router.Handler {
	return router.HandlerFunc(func(ctx context.Context, req *router.Request) (any, error) {
		s := clientSessionFrom(ctx)
		if s == nil {
			return nil, errNoSession
		}
		p := new(P)
		if req.Params != nil {
			if err := codec.UnmarshalExact(req.Params, p); err != nil {
				return nil, invalidParams("Invalid params: " + err.Error())
			}
		}
		return f(ctx, s, p)
	})
}

func (c *Client) handle(name string, h router.Handler, inline bool) {
	var o *router.MethodOptions
	if inline {
		o = &router.MethodOptions{Inline: true}
	}
	if err := c.router.Register(name, h, o); err != nil {
		panic("mcp: registering " + name + ": " + err.Error())
	}
}

// registerHandlers registers what the client serves: ping and the
// requests it declared, and the server's notifications (run in order, on
// the reader: their handlers must be quick).
func (c *Client) registerHandlers() {
	o := &c.opts
	c.handle("ping", router.HandlerFunc(func(context.Context, *router.Request) (any, error) { return Empty{}, nil }), true)
	c.handle("notifications/cancelled", clientMethod(func(_ context.Context, s *ClientSession, p *CancelledParams) (any, error) {
		if len(p.RequestID) > 0 {
			s.c.Cancel(p.RequestID)
		}
		return nil, nil
	}), true)
	// The first message of a subscriptions/listen stream (stateless
	// versions): what it carries is what the session asked for, less
	// what the server does not announce, which it knows from discover.
	c.handle("notifications/subscriptions/acknowledged", clientMethod(func(_ context.Context, s *ClientSession, _ *struct{}) (any, error) {
		s.listen.acknowledged()
		return nil, nil
	}), true)
	if h := o.CreateMessageHandler; h != nil {
		c.handle("sampling/createMessage", clientMethod(func(ctx context.Context, s *ClientSession, p *CreateMessageParams) (any, error) {
			r, err := h(ctx, &CreateMessageRequest{s, p})
			if id := relatedTaskID(p.Meta); id != "" && err == nil && r != nil {
				q := *r
				q.Meta = relatedTaskMeta(r.Meta, id)
				r = &q
			}
			return r, err
		}), false)
	}
	if o.ElicitationHandler != nil || o.URLElicitationHandler != nil {
		c.handle("elicitation/create", clientMethod(c.elicit), false)
	}
	if h := o.ElicitationCompleteHandler; h != nil {
		c.handle("notifications/elicitation/complete", clientMethod(func(ctx context.Context, s *ClientSession, p *ElicitationCompleteParams) (any, error) {
			if s.elicits.complete(p.ElicitationID) {
				h(ctx, s, p)
			}
			return nil, nil
		}), true)
	}
	if h := o.RootsHandler; h != nil {
		c.handle("roots/list", clientMethod(func(ctx context.Context, s *ClientSession, p *metaOnly) (any, error) {
			r, err := h(ctx, s)
			if id := relatedTaskID(p.Meta); err == nil && r != nil && (r.Roots == nil || id != "") {
				q := *r
				if q.Roots == nil {
					q.Roots = []*Root{}
				}
				if id != "" {
					q.Meta = relatedTaskMeta(r.Meta, id)
				}
				r = &q
			}
			return r, err
		}), false)
	}
	note := func(name string, f func(ctx context.Context, s *ClientSession)) {
		if f != nil {
			c.handle(name, clientMethod(func(ctx context.Context, s *ClientSession, _ *struct{}) (any, error) {
				f(ctx, s)
				return nil, nil
			}), true)
		}
	}
	// A list_changed makes the session's cached results of the list
	// stale, with or without a handler.
	listChanged := func(name string, f func(ctx context.Context, s *ClientSession)) {
		note(name, func(ctx context.Context, s *ClientSession) {
			s.lists.changed(name)
			if name == "notifications/tools/list_changed" {
				s.outputs.changed()
			}
			if f != nil {
				f(ctx, s)
			}
		})
	}
	listChanged("notifications/tools/list_changed", o.ToolListChangedHandler)
	listChanged("notifications/resources/list_changed", o.ResourceListChangedHandler)
	listChanged("notifications/prompts/list_changed", o.PromptListChangedHandler)
	if h := o.LoggingMessageHandler; h != nil {
		c.handle("notifications/message", clientMethod(func(ctx context.Context, s *ClientSession, p *LoggingMessageParams) (any, error) {
			h(ctx, s, p)
			return nil, nil
		}), true)
	}
	if h := o.TaskStatusHandler; h != nil {
		c.handle("notifications/tasks/status", clientMethod(func(ctx context.Context, s *ClientSession, p *Task) (any, error) {
			h(ctx, s, p)
			return nil, nil
		}), true)
	}
	if h := o.ProgressHandler; h != nil {
		c.handle("notifications/progress", clientMethod(func(ctx context.Context, s *ClientSession, p *ProgressParams) (any, error) {
			h(ctx, s, p)
			return nil, nil
		}), true)
	}
	if h := o.ResourceUpdatedHandler; h != nil {
		c.handle("notifications/resources/updated", clientMethod(func(ctx context.Context, s *ClientSession, p *ResourceUpdatedParams) (any, error) {
			h(ctx, s, p)
			return nil, nil
		}), true)
	}
}

// options returns the connection options of a new session.
func (c *Client) options(s *ClientSession) *conn.Options {
	var o conn.Options
	if c.opts.Conn != nil {
		o = *c.opts.Conn
	}
	o.Router = c.router
	o.Cancel = conn.CancelSilent
	parent := o.Context
	if parent == nil {
		parent = context.Background()
	}
	o.Context = context.WithValue(parent, clientSessionKey{}, s)
	o.Logger = c.log
	return &o
}

// Connect starts a session with the server at the other end of a message
// stream and runs the handshake: server/discover under a stateless
// version (the default), falling back to initialize for a server of the
// older versions; initialize and notifications/initialized under the
// others. On failure the session is closed.
func (c *Client) Connect(ctx context.Context, stream conn.Stream) (*ClientSession, error) {
	return c.ConnectTransport(ctx, stream, nil)
}

// ConnectTransport is Connect for a transport that follows the handshake
// (Streamable HTTP, package mcp/streamable): t, if not nil, is told how it
// goes (see ClientTransport).
func (c *Client) ConnectTransport(ctx context.Context, stream conn.Stream, t ClientTransport) (*ClientSession, error) {
	s := &ClientSession{client: c, hs: t}
	s.c = conn.NewStream(stream, c.options(s))
	return s, s.handshake(ctx, c.opts.ProtocolVersion)
}

// ConnectStateful is ConnectTransport for a transport that carries only
// the versions with initialize, such as the HTTP+SSE transport of
// 2024-11-05 (streamable.ConnectSSE): the session runs initialize at
// once, asking for ClientOptions.ProtocolVersion when it is not a
// stateless version, else for LatestVersion; it never sends
// server/discover. t may be nil.
func (c *Client) ConnectStateful(ctx context.Context, stream conn.Stream, t ClientTransport) (*ClientSession, error) {
	version := c.opts.ProtocolVersion
	if IsStatelessVersion(version) {
		version = LatestVersion
	}
	s := &ClientSession{client: c, hs: t}
	s.c = conn.NewStream(stream, c.options(s))
	return s, s.handshake(ctx, version)
}

// ClientTransport is told how a client session's handshake goes, by a
// transport that needs to know (Streamable HTTP sends the negotiated
// version with every later request, and opens its GET stream once the
// session is initialized). Its methods are called in this order, from
// the goroutine running the handshake.
type ClientTransport interface {
	// Negotiated is called with the version the server answered
	// initialize with, once it is known to be supported.
	Negotiated(version string)
	// Opened is called once notifications/initialized has been sent:
	// the session is initialized.
	Opened()
}

// ConnectIO is Connect over a byte stream framed by the options' framing
// (newline-delimited by default: MCP's stdio transport).
func (c *Client) ConnectIO(ctx context.Context, rwc io.ReadWriteCloser) (*ClientSession, error) {
	s := &ClientSession{client: c}
	s.c = conn.New(rwc, c.options(s))
	return s, s.handshake(ctx, c.opts.ProtocolVersion)
}

// ErrUnsupportedVersion is returned by Connect when the server answers
// initialize with a protocol version this package does not speak.
var ErrUnsupportedVersion = errors.New("mcp: the server answered with an unsupported protocol version")

// handshake opens the session under version: server/discover for a
// stateless one (falling back to initialize), else initialize.
func (s *ClientSession) handshake(ctx context.Context, version string) error {
	c := s.client
	if IsStatelessVersion(version) {
		fallback, legacy, err := s.discover(ctx, version)
		if err == nil && !fallback {
			if s.hs != nil {
				s.hs.Negotiated(s.init.ProtocolVersion)
			}
			s.listen.mu.Lock()
			s.relisten() // list changes come on a stream of their own
			s.listen.await(ctx)
			s.listen.mu.Unlock()
			return nil // no keep-alive: the version has no ping
		}
		if err != nil {
			s.c.Close()
			return err
		}
		version = cmp.Or(legacy, LatestVersion)
	}
	caps := c.caps
	var res InitializeResult
	err := s.call(ctx, "initialize", &InitializeParams{
		ProtocolVersion: version,
		Capabilities:    &caps,
		ClientInfo:      &c.impl,
	}, &res)
	if err == nil && negotiate(res.ProtocolVersion) != res.ProtocolVersion {
		err = ErrUnsupportedVersion
	}
	if err == nil {
		s.init = res
		if res.Capabilities == nil {
			s.init.Capabilities = &ServerCapabilities{}
		}
		s.c.SetBatches(allowsBatches(res.ProtocolVersion))
		if s.hs != nil {
			s.hs.Negotiated(res.ProtocolVersion)
		}
		err = s.c.Notify(ctx, "notifications/initialized", nil)
		if err == nil && s.hs != nil {
			s.hs.Opened()
		}
	}
	if err != nil {
		s.c.Close()
		return err
	}
	return s.opened()
}

// opened starts what runs beside an opened session: its keep-alive pings.
func (s *ClientSession) opened() error {
	if k := s.client.opts.KeepAlive; k.Interval > 0 {
		go keepAlive(k, s.c.Done(), s)
	}
	return nil
}
