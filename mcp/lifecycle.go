package mcp

import (
	"context"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/router"
)

// errAlreadyInitialized answers a second initialize on a session.
var errAlreadyInitialized = codec.NewError(codec.CodeInvalidRequest, "Invalid Request: the session is already initialized")

// initialize negotiates the session: the protocol version (the client's
// when supported, else the latest), the capabilities, and the batch
// policy that goes with the version. It runs inline, so the session's
// state is settled before the next message is read.
func (s *Server) initialize(ctx context.Context, ss *ServerSession, _ *router.Request, p *InitializeParams) (any, error) {
	res, err := s.negotiate(ss, p)
	if err != nil {
		return nil, err
	}
	if s.opts.SessionState != nil || s.opts.Broadcast != nil {
		s.noticeWatch.ensure(ctx)
		if s.opts.SessionState != nil {
			s.joinShared(ctx, ss)
		}
	}
	return res, nil
}

// negotiate is initialize but for the state shared with other instances.
func (s *Server) negotiate(ss *ServerSession, p *InitializeParams) (*InitializeResult, error) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.state.Load() != stateNew {
		return nil, errAlreadyInitialized
	}
	ss.version = negotiate(p.ProtocolVersion)
	ss.vlevel = levelOf(ss.version)
	if p.ClientInfo != nil {
		ci := *p.ClientInfo
		ss.clientInfo = &ci
	}
	if p.Capabilities != nil {
		cc := *p.Capabilities
		ss.clientCaps = &cc
	}
	caps := s.capabilities()
	if s.tasksFor(ss) {
		caps.Tasks = tasksCapability()
	}
	kept := caps // the session's own: the result may be changed on its way out
	ss.caps = &kept
	if c := ss.c.Load(); c != nil {
		c.SetBatches(allowsBatches(ss.version))
	}
	ss.state.Store(stateInitializing)
	s.track(ss)
	return &InitializeResult{
		ProtocolVersion: ss.version,
		Capabilities:    caps.at(ss.vlevel),
		ServerInfo:      s.impl.at(ss.vlevel),
		Instructions:    s.opts.Instructions,
	}, nil
}

// capabilities returns what the server declares now: what
// ServerOptions.Capabilities says, and every feature it has.
func (s *Server) capabilities() ServerCapabilities {
	var c ServerCapabilities
	if o := s.opts.Capabilities; o != nil {
		c = *o
	}
	c.Logging = &LoggingCapability{}
	if c.Tools == nil && s.tools.len() > 0 {
		c.Tools = &ToolsCapability{ListChanged: true}
	}
	if c.Resources == nil && (s.resources.len() > 0 || s.templates.len() > 0) {
		c.Resources = &ResourcesCapability{Subscribe: true, ListChanged: true}
	}
	if c.Prompts == nil && s.prompts.len() > 0 {
		c.Prompts = &PromptsCapability{ListChanged: true}
	}
	if c.Completions == nil && s.opts.CompletionHandler != nil {
		c.Completions = &CompletionsCapability{}
	}
	return c
}

// initializedNote serves notifications/initialized.
func (s *Server) initializedNote(ctx context.Context, ss *ServerSession, _ *router.Request, _ *struct{}) (any, error) {
	if h := s.opts.InitializedHandler; s.markInitialized(ss) && h != nil {
		h(ctx, ss)
	}
	return nil, nil
}

// markInitialized ends ss's initialization, and reports whether it did:
// not before initialize, nor twice.
func (s *Server) markInitialized(ss *ServerSession) bool {
	if !ss.state.CompareAndSwap(stateInitializing, stateInitialized) {
		return false
	}
	if s.opts.KeepAlive.Interval > 0 { // once initialize's answer is out
		go keepAlive(s.opts.KeepAlive, ss.done, ss)
	}
	return true
}

// rootsChanged serves notifications/roots/list_changed.
func (s *Server) rootsChanged(ctx context.Context, ss *ServerSession, _ *router.Request, _ *struct{}) (any, error) {
	if h := s.opts.RootsListChangedHandler; h != nil {
		h(ctx, ss)
	}
	return nil, nil
}

// setLevel serves logging/setLevel: the session's least severe level.
// Under ServerOptions.SessionState it is saved for the session's copies
// on other instances before it is set here.
func (s *Server) setLevel(ctx context.Context, ss *ServerSession, _ *router.Request, p *SetLevelParams) (any, error) {
	sev := p.Level.severity()
	if sev == 0 {
		return nil, invalidParams("Invalid params: unknown logging level " + quote(string(p.Level))).
			WithData(map[string]string{"level": string(p.Level)})
	}
	if ss.shared == nil {
		ss.level.Store(sev)
		return Empty{}, nil
	}
	s.saveState(ctx, ss, SessionStateChange{Level: p.Level})
	s.mu.Lock()
	ss.level.Store(sev)
	ss.shared.gen.Add(1)
	s.mu.Unlock()
	return Empty{}, nil
}
