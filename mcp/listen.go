package mcp

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/router"
)

// Subscriptions of the stateless versions (2026-07-28): a client sends
// subscriptions/listen with a filter, and the request stays open as a
// stream of the notifications it asked for — the server's list changes
// and the updates of the resources it names — each tagged with the
// request's id (MetaSubscriptionID), after a first
// notifications/subscriptions/acknowledged saying which of them the
// server honours. Over Streamable HTTP the stream is the POST's event
// stream; over stdio the notifications share the session's stream. It
// ends when the client cancels the request (notifications/cancelled, or
// closing the HTTP response), unanswered, or when the server's
// connection stops (Shutdown), answered with an empty result.
//
// The request's handler is the stream's only sender: a change queues a
// bit (list changes) or a URI (updates) on the listener and wakes it, so
// that Server.ResourceUpdated and the list changes never wait for a
// client, changes that pile up are sent once, and the acknowledgement is
// always first. Each open subscription holds one of the pool's workers.

// MetaSubscriptionID is the key of _meta that names, in every message of
// a subscriptions/listen stream, the request that opened it: its id.
const MetaSubscriptionID = "io.modelcontextprotocol/subscriptionId"

// SubscriptionFilter says which notifications a subscriptions/listen
// stream carries (2026-07-28); the server's acknowledgement repeats the
// part of it the server honours.
type SubscriptionFilter struct {
	ToolsListChanged     bool `json:"toolsListChanged,omitempty"`
	PromptsListChanged   bool `json:"promptsListChanged,omitempty"`
	ResourcesListChanged bool `json:"resourcesListChanged,omitempty"`
	// ResourceSubscriptions are the URIs whose notifications/resources/updated
	// the stream carries (Server.ResourceUpdated).
	ResourceSubscriptions []string `json:"resourceSubscriptions,omitempty"`
}

// ListenParams are the params of subscriptions/listen.
type ListenParams struct {
	Meta          Meta               `json:"_meta,omitempty"`
	Notifications SubscriptionFilter `json:"notifications"`
}

// subscriptionMeta is the _meta of every message of a subscription.
type subscriptionMeta struct {
	ID codec.Raw `json:"io.modelcontextprotocol/subscriptionId"`
}

// acknowledgedParams are the params of
// notifications/subscriptions/acknowledged.
type acknowledgedParams struct {
	Meta          subscriptionMeta   `json:"_meta"`
	Notifications SubscriptionFilter `json:"notifications"`
}

// subscriptionNote is the params of a list change on a subscription, and
// (with URI) of a resource's update.
type subscriptionNote struct {
	Meta subscriptionMeta `json:"_meta"`
	URI  string           `json:"uri,omitempty"`
}

// listenResult is the answer of a subscription the server ends.
type listenResult struct {
	Meta subscriptionMeta `json:"_meta"`
}

// listener is one open subscriptions/listen request.
type listener struct {
	meta   subscriptionMeta
	filter SubscriptionFilter // what the server honours
	bits   atomic.Uint32      // list changes due (changedTools…)
	wake   chan struct{}      // 1-buffered: something is due

	mu   sync.Mutex
	uris []string // updates due, in order, each once
}

// honoured returns the part of f the server can honour: the list changes
// and resource updates it declares (ServerOptions.Capabilities, or what
// it serves).
func (s *Server) honoured(f SubscriptionFilter) SubscriptionFilter {
	c := s.capabilities()
	var h SubscriptionFilter
	h.ToolsListChanged = f.ToolsListChanged && c.Tools != nil && c.Tools.ListChanged
	h.PromptsListChanged = f.PromptsListChanged && c.Prompts != nil && c.Prompts.ListChanged
	h.ResourcesListChanged = f.ResourcesListChanged && c.Resources != nil && c.Resources.ListChanged
	if c.Resources != nil && c.Resources.Subscribe {
		h.ResourceSubscriptions = slices.Clone(f.ResourceSubscriptions)
	}
	return h
}

// listen serves subscriptions/listen, a method of the stateless versions
// alone; see the comment at the top of the file.
func (s *Server) listen(ctx context.Context, ss *ServerSession, req *router.Request, p *ListenParams) (any, error) {
	c := ss.c.Load()
	if c == nil {
		return nil, ErrNotConnected
	}
	l := &listener{meta: subscriptionMeta{ID: append(codec.Raw(nil), req.ID...)},
		filter: s.honoured(p.Notifications), wake: make(chan struct{}, 1)}
	s.addListener(l) // before the acknowledgement: no change is missed
	defer s.removeListener(l)
	s.noticeWatch.ensure(ctx) // other instances' changes too (Broadcast)
	if err := ss.notify(ctx, "notifications/subscriptions/acknowledged",
		&acknowledgedParams{Meta: l.meta, Notifications: l.filter}); err != nil {
		return nil, err
	}
	stopping := c.Stopping()
	for {
		select {
		case <-l.wake:
			if err := l.send(ctx, ss); err != nil {
				return nil, err
			}
		case <-stopping:
			return &listenResult{Meta: l.meta}, nil
		case <-ctx.Done():
			return nil, ctx.Err() // cancelled: never answered
		}
	}
}

// send sends what is due on the subscription, list changes first.
func (l *listener) send(ctx context.Context, ss *ServerSession) error {
	due := l.bits.Swap(0)
	for _, m := range changedMethods {
		if due&m.bit != 0 {
			if err := ss.notify(ctx, m.method, &subscriptionNote{Meta: l.meta}); err != nil {
				return err
			}
		}
	}
	l.mu.Lock()
	uris := l.uris
	l.uris = nil
	l.mu.Unlock()
	for _, u := range uris {
		if err := ss.notify(ctx, "notifications/resources/updated", &subscriptionNote{Meta: l.meta, URI: u}); err != nil {
			return err
		}
	}
	return nil
}

// wants reports whether the subscription carries the list change bit.
func (l *listener) wants(bit uint32) bool {
	switch bit {
	case changedTools:
		return l.filter.ToolsListChanged
	case changedPrompts:
		return l.filter.PromptsListChanged
	case changedResources:
		return l.filter.ResourcesListChanged
	}
	return false
}

// queue makes the list change bit due, and wakes the subscription.
func (l *listener) queue(bit uint32) {
	l.bits.Or(bit)
	l.poke()
}

// queueUpdate makes an update of uri due, once, if the subscription
// names it, and wakes the subscription.
func (l *listener) queueUpdate(uri string) {
	if !slices.Contains(l.filter.ResourceSubscriptions, uri) {
		return
	}
	l.mu.Lock()
	if !slices.Contains(l.uris, uri) {
		l.uris = append(l.uris, uri)
	}
	l.mu.Unlock()
	l.poke()
}

func (l *listener) poke() {
	select {
	case l.wake <- struct{}{}:
	default: // already woken: the handler sends all that is due
	}
}

func (s *Server) addListener(l *listener) {
	s.mu.Lock()
	if s.listeners == nil {
		s.listeners = map[*listener]struct{}{}
	}
	s.listeners[l] = struct{}{}
	s.mu.Unlock()
}

func (s *Server) removeListener(l *listener) {
	s.mu.Lock()
	delete(s.listeners, l)
	s.mu.Unlock()
}

// eachListener calls f for every open subscription, outside the lock.
func (s *Server) eachListener(f func(*listener)) {
	s.mu.Lock()
	if len(s.listeners) == 0 {
		s.mu.Unlock()
		return
	}
	ls := make([]*listener, 0, len(s.listeners))
	for l := range s.listeners {
		ls = append(ls, l)
	}
	s.mu.Unlock()
	for _, l := range ls {
		f(l)
	}
}
