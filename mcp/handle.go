package mcp

import (
	"bytes"
	"context"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/internal/principal"
	"github.com/mcpwire/mcpwire/router"
)

// Errors the protocol layer answers with. Shared and read-only.
var (
	// errNotInitialized answers a request other than initialize and ping
	// before initialize.
	errNotInitialized = codec.NewError(codec.CodeInvalidRequest, "Invalid Request: the session is not initialized (send initialize first)")
	// errNoSession answers a request that reached the server's router
	// outside of a session it bound.
	errNoSession = codec.NewError(codec.CodeInternalError, "Internal error: no MCP session")
)

// gate says when a method may be used: a set of these bits.
type gate uint8

const (
	// afterInit: in a session of the older versions, only once
	// initialize has been answered.
	afterInit gate = 0
	// anyTime: in a session of the older versions, also before
	// (initialize, ping).
	anyTime gate = 1 << iota
	// stateless: served to a request of a stateless version too; a
	// method without it is -32601 there.
	stateless
	// onlyStateless: served to requests of a stateless version alone
	// (server/discover).
	onlyStateless
	// cacheable: under a stateless version, its result carries ttlMs and
	// cacheScope.
	cacheable
	// inputs: under a stateless version, it may answer input_required
	// (multi-round-trip requests: see inputRound).
	inputs
)

// methodFunc serves one MCP method with its params decoded.
type methodFunc[P any] func(ctx context.Context, ss *ServerSession, req *router.Request, p *P) (any, error)

// method adapts f to a router.Handler: it finds the session, applies the
// gate, and decodes the params (case-sensitively) into a P; a nil params
// gives a zero P. Malformed params are answered -32602.
func method[P any](g gate, f methodFunc[P]) router.Handler {
	return router.HandlerFunc(func(ctx context.Context, req *router.Request) (any, error) {
		p := new(P)
		var view requestMeta
		ctx, ss, err := prepare(ctx, g, req, p, &view)
		if err != nil {
			return nil, err
		}
		if ss.cachesResult(g, req) {
			return ss.cachedResult(ctx, g, req, func() (any, error) { return f(ctx, ss, req, p) })
		}
		res, err := f(ctx, ss, req, p)
		return ss.result(g, req.Method, res, err)
	})
}

// requestFunc serves one MCP method whose feature handler sees the
// request as a ServerRequest.
type requestFunc[P any] func(ctx context.Context, r *ServerRequest[*P]) (any, error)

// withRequest is method for a requestFunc: the params and the
// ServerRequest holding them are one allocation.
func withRequest[P any](g gate, f requestFunc[P]) router.Handler {
	return router.HandlerFunc(func(ctx context.Context, req *router.Request) (any, error) {
		c := new(requestWith[P])
		var view requestMeta
		ctx, ss, err := prepare(ctx, g, req, &c.p, &view)
		if err != nil {
			return nil, err
		}
		c.r.Params = &c.p
		c.r.init(ss, req, &view)
		if ss.cachesResult(g, req) {
			return ss.cachedResult(ctx, g, req, func() (any, error) { return c.run(ctx, g, ss, req, f) })
		}
		res, err := c.run(ctx, g, ss, req, f)
		return ss.result(g, req.Method, res, err)
	})
}

// requestWith is a ServerRequest and the params it points to.
type requestWith[P any] struct {
	r ServerRequest[*P]
	p P
}

// run runs f on the request: under a stateless version, for a method
// whose handler may ask the client (inputs), within a round of
// multi-round-trip requests that the request's requestState and
// inputResponses open, and whose questions finish it.
func (c *requestWith[P]) run(ctx context.Context, g gate, ss *ServerSession, req *router.Request, f requestFunc[P]) (any, error) {
	if g&inputs == 0 || !ss.stateless() {
		return f(ctx, &c.r)
	}
	if err := ss.round.open(ctx, ss.srv, req); err != nil {
		return nil, err
	}
	res, err := f(ctx, &c.r)
	return ss.round.finish(res, err)
}

// prepare finds the handler's session, applies the gate and decodes
// params into p (a pointer). A request of a stateless version gets a
// session of its own, in the context returned too. view (zero) receives
// the view of the params read on the way, if one was (requestMeta.Whole).
func prepare(ctx context.Context, g gate, req *router.Request, p any, view *requestMeta) (context.Context, *ServerSession, error) {
	ctx, ss, err := sessionOf(ctx, g, req, view)
	if err != nil {
		return ctx, nil, err
	}
	if err := ss.srv.checkScopes(ctx, ss, req); err != nil {
		return ctx, nil, err
	}
	params := req.Params
	if params == nil {
		return ctx, ss, nil
	}
	// A name given twice in one object is refused before anything decodes
	// params: the schema validator and the decoder could each take a
	// different one of the two values. (statelessSession has refused it
	// already for a request of a stateless version.) tools/call's common
	// params decode from a view of them, the one statelessSession read or
	// a new one, which spares the check a walk over the names it read;
	// anything else goes to sonic.
	cp, isCall := p.(*CallToolParams)
	if !ss.stateless() {
		if isCall {
			view.Reread(params)
		}
		if at := view.DuplicateName(params); at >= 0 {
			return ctx, nil, codec.DuplicateNameError(params, at)
		}
	}
	if isCall && view.Whole && cp.decodeCommon(view) {
		return ctx, ss, nil
	}
	if err := codec.UnmarshalExact(params, p); err != nil {
		return ctx, nil, invalidParams("Invalid params: " + err.Error())
	}
	if bytes.Contains(params, statelessKey) {
		dropEngineMeta(p)
	}
	return ctx, ss, nil
}

// sessionOf returns the session that serves req under gate g: the
// connection's, or for a request of a stateless version one of its own
// (see statelessSession), which the context returned carries. view, if
// not nil, receives statelessSession's view of the params.
func sessionOf(ctx context.Context, g gate, req *router.Request, view *requestMeta) (context.Context, *ServerSession, error) {
	ss := SessionFromContext(ctx)
	if ss == nil {
		return ctx, nil, errNoSession
	}
	if ss.c.Load() == nil { // a session from Bind learns its connection here
		ss.setConn(conn.FromContext(ctx))
	}
	ctx = bodyPrincipal(ctx)
	if g&onlyStateless != 0 || bytes.Contains(req.Params, statelessKey) {
		if view == nil {
			view = new(requestMeta)
		}
		rs, rctx, err := ss.srv.statelessSession(ctx, ss, g, req.Method, req.Params, view)
		if err != nil {
			return ctx, nil, err
		}
		if rs != nil {
			return rctx, rs, nil
		}
	}
	if g&anyTime == 0 && !ss.initialized() {
		return ctx, nil, errNotInitialized
	}
	return ctx, ss, nil
}

// bodyPrincipal returns ctx with the principal of the HTTP request whose
// body carried the message, when ctx has none of its own (Streamable
// HTTP: an authenticating middleware put it in the request's context,
// which conn.BodyContext finds), so that handlers, scopes, sealed
// requestState and tasks see who asked, as they do on stream transports
// (middleware.Auth).
func bodyPrincipal(ctx context.Context) context.Context {
	bctx, ok := conn.BodyContext(ctx) // first: a stream's request has no body and pays one lookup
	if !ok {
		return ctx
	}
	if _, ok := principal.From(ctx); ok {
		return ctx
	}
	if p, ok := principal.From(bctx); ok {
		return principal.With(ctx, p)
	}
	return ctx
}

// result is what method served to ss answers: under a stateless
// version, a result carries what the version adds to every one (see
// statelessResult), and a cacheable method's the server's cache hint for
// it, or the result's own (hinted); otherwise res and err go out as they
// are.
func (ss *ServerSession) result(g gate, method string, res any, err error) (any, error) {
	if err != nil || res == nil || !ss.stateless() {
		return res, err
	}
	r := ss.out // in the session's allocation, when it has one (statelessAlloc)
	if r == nil {
		r = new(statelessResult)
	}
	ss.out = nil // one result a request: a second would have its own
	r.v, r.info, r.head = res, ss.srv.info, ss.srv.head
	if _, more := res.(*inputRequired); g&cacheable != 0 && !more { // not a result a client keeps
		r.hint = ss.srv.hints.of(method)
		if h, ok := res.(*hinted); ok {
			r.v, r.hint = h.v, h.hint
		}
	}
	return r, nil
}

// invalidParams is a -32602 error with this message.
func invalidParams(msg string) *codec.Error { return codec.NewError(codec.CodeInvalidParams, msg) }

// register adds a protocol method to the server's router; names are
// fixed, so a failure is a bug.
func (s *Server) register(name string, h router.Handler, inline bool) {
	var o *router.MethodOptions
	if inline {
		o = &router.MethodOptions{Inline: true}
	}
	s.protocol[name] = struct{}{}
	if err := s.router.Register(name, h, o); err != nil {
		panic("mcp: registering " + name + ": " + err.Error())
	}
}

// registerProtocol registers every method of the protocol the server
// serves. Cheap ones that never block run inline on the reader: ping,
// server/discover, initialize (so the session's state is set before the
// next message is
// read), logging/setLevel (unless ServerOptions.SessionState saves it)
// and the cancellation notification (which must get through even while
// every worker is busy with what it cancels).
func (s *Server) registerProtocol() {
	s.register("server/discover", method(onlyStateless|stateless|cacheable, s.discover), true)
	s.register("subscriptions/listen", method(onlyStateless|stateless, s.listen), false)
	s.register("initialize", method(anyTime, s.initialize), true)
	s.register("ping", method(anyTime, func(context.Context, *ServerSession, *router.Request, *struct{}) (any, error) {
		return Empty{}, nil
	}), true)
	s.register("notifications/initialized", method(anyTime, s.initializedNote), false)
	s.register("notifications/cancelled", method(anyTime|stateless, cancelled), true)
	s.register("notifications/progress", method(anyTime|stateless, ignoreNote), true)
	s.register("notifications/roots/list_changed", method(afterInit, s.rootsChanged), false)
	s.register("logging/setLevel", method(afterInit, s.setLevel), s.opts.SessionState == nil)

	s.register("tools/list", method(afterInit|stateless|cacheable, s.listTools), false)
	s.register("tools/call", withRequest(afterInit|stateless|inputs, s.callTool), false)
	s.register("resources/list", method(afterInit|stateless|cacheable, s.listResources), false)
	s.register("resources/templates/list", method(afterInit|stateless|cacheable, s.listTemplates), false)
	s.register("resources/read", withRequest(afterInit|stateless|cacheable|inputs, s.readResource), false)
	s.register("resources/subscribe", withRequest(afterInit, s.subscribe), false)
	s.register("resources/unsubscribe", withRequest(afterInit, s.unsubscribe), false)
	s.register("prompts/list", method(afterInit|stateless|cacheable, s.listPrompts), false)
	s.register("prompts/get", withRequest(afterInit|stateless|inputs, s.getPrompt), false)
	s.register("completion/complete", withRequest(afterInit|stateless, s.complete), false)
	s.register("tasks/get", method(afterInit|stateless, s.getTask), false)
	s.register("tasks/result", method(afterInit, s.taskResult), false)
	s.register("tasks/list", method(afterInit, s.listTasks), false)
	s.register("tasks/cancel", method(afterInit|stateless, s.cancelTask), false)
	s.register("tasks/update", method(afterInit|stateless, s.extUpdateTask), false)
}

func ignoreNote(context.Context, *ServerSession, *router.Request, *struct{}) (any, error) {
	return nil, nil
}

// cancelled serves notifications/cancelled: the request it names, if still
// running, has its context cancelled and is never answered.
func cancelled(_ context.Context, ss *ServerSession, _ *router.Request, p *CancelledParams) (any, error) {
	if c := ss.c.Load(); c != nil && len(p.RequestID) > 0 {
		c.Cancel(p.RequestID)
	}
	return nil, nil
}
