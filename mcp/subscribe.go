package mcp

import (
	"context"
	"errors"
)

// Subscriptions: a session subscribes to resource URIs; ResourceUpdated
// tells the sessions subscribed to a URI. The index (URI → sessions) and
// each session's own set are kept under Server.mu, and a session's
// subscriptions go when it ends. Under ServerOptions.SessionState a
// change is saved for the session's copies on other instances before it
// is made here (sessionstate.go).

// subscribe serves resources/subscribe.
func (s *Server) subscribe(ctx context.Context, req *ServerRequest[*SubscribeParams]) (any, error) {
	ss, p := req.Session, req.Params
	if p.URI == "" {
		return nil, invalidParams("Invalid params: uri is required")
	}
	if h := s.opts.SubscribeHandler; h != nil {
		if err := h(ctx, req); err != nil {
			return nil, err
		}
	}
	if ss.shared != nil {
		s.saveState(ctx, ss, SessionStateChange{URI: p.URI, Subscribed: true})
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if ss.closed.Load() {
		return Empty{}, nil
	}
	s.subscribeLocked(ss, p.URI)
	if ss.shared != nil {
		ss.shared.gen.Add(1)
	}
	return Empty{}, nil
}

func (s *Server) subscribeLocked(ss *ServerSession, uri string) {
	if ss.subs == nil {
		ss.subs = map[string]struct{}{}
	}
	ss.subs[uri] = struct{}{}
	m := s.subs[uri]
	if m == nil {
		m = map[*ServerSession]struct{}{}
		s.subs[uri] = m
	}
	m[ss] = struct{}{}
}

// unsubscribe serves resources/unsubscribe.
func (s *Server) unsubscribe(ctx context.Context, req *ServerRequest[*SubscribeParams]) (any, error) {
	ss, p := req.Session, req.Params
	if p.URI == "" {
		return nil, invalidParams("Invalid params: uri is required")
	}
	if h := s.opts.UnsubscribeHandler; h != nil {
		if err := h(ctx, req); err != nil {
			return nil, err
		}
	}
	if ss.shared != nil {
		s.saveState(ctx, ss, SessionStateChange{URI: p.URI})
	}
	s.mu.Lock()
	s.unsubscribeLocked(ss, p.URI)
	if ss.shared != nil {
		ss.shared.gen.Add(1)
	}
	s.mu.Unlock()
	return Empty{}, nil
}

func (s *Server) unsubscribeLocked(ss *ServerSession, uri string) {
	delete(ss.subs, uri)
	if m := s.subs[uri]; m != nil {
		delete(m, ss)
		if len(m) == 0 {
			delete(s.subs, uri)
		}
	}
}

// ResourceUpdated tells every session subscribed to uri that the resource
// changed (notifications/resources/updated), and every subscription
// naming it (subscriptions/listen, which sends it on its own stream: not
// waited for). It returns the errors of the sessions it could not tell.
// Under ServerOptions.Broadcast it then publishes the update, within ctx,
// for the other instances to tell theirs; a failure to publish is logged,
// not returned.
func (s *Server) ResourceUpdated(ctx context.Context, uri string) error {
	err := s.resourceUpdatedLocal(ctx, uri)
	if s.opts.Broadcast != nil {
		s.publish(ctx, &Notice{Method: methodResourceUpdated, URI: uri})
	}
	return err
}

// resourceUpdatedLocal is ResourceUpdated for this server's sessions.
func (s *Server) resourceUpdatedLocal(ctx context.Context, uri string) error {
	s.mu.Lock()
	subs := make([]*ServerSession, 0, len(s.subs[uri]))
	for ss := range s.subs[uri] {
		subs = append(subs, ss)
	}
	s.mu.Unlock()
	var errs []error
	p := &ResourceUpdatedParams{URI: uri}
	for _, ss := range subs {
		if err := ss.notify(ctx, methodResourceUpdated, p); err != nil {
			errs = append(errs, err)
		}
	}
	s.eachListener(func(l *listener) { l.queueUpdate(uri) })
	return errors.Join(errs...)
}

// Subscribed reports whether the session is subscribed to uri.
func (ss *ServerSession) Subscribed(uri string) bool {
	ss.srv.mu.Lock()
	defer ss.srv.mu.Unlock()
	_, ok := ss.subs[uri]
	return ok
}
