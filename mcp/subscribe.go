package mcp

import (
	"context"
	"errors"
)

// Subscriptions: a session subscribes to resource URIs; ResourceUpdated
// tells the sessions subscribed to a URI. The index (URI → sessions) and
// each session's own set are kept under Server.mu, and a session's
// subscriptions go when it ends.

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
	s.mu.Lock()
	defer s.mu.Unlock()
	if ss.closed.Load() {
		return Empty{}, nil
	}
	if ss.subs == nil {
		ss.subs = map[string]struct{}{}
	}
	ss.subs[p.URI] = struct{}{}
	m := s.subs[p.URI]
	if m == nil {
		m = map[*ServerSession]struct{}{}
		s.subs[p.URI] = m
	}
	m[ss] = struct{}{}
	return Empty{}, nil
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
	s.mu.Lock()
	s.unsubscribeLocked(ss, p.URI)
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
func (s *Server) ResourceUpdated(ctx context.Context, uri string) error {
	s.mu.Lock()
	subs := make([]*ServerSession, 0, len(s.subs[uri]))
	for ss := range s.subs[uri] {
		subs = append(subs, ss)
	}
	s.mu.Unlock()
	var errs []error
	p := &ResourceUpdatedParams{URI: uri}
	for _, ss := range subs {
		if err := ss.notify(ctx, "notifications/resources/updated", p); err != nil {
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
