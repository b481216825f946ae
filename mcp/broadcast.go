package mcp

import (
	"context"
	"sync"
)

// Server-wide notifications across instances: under
// ServerOptions.Broadcast, ResourceUpdated and the changes of the lists
// are told to the local sessions as always, and published for the other
// instances, whose servers tell theirs (the sessions subscribed to the
// resource, those that were promised list_changed, the subscriptions/
// listen streams) and publish nothing more. Publishing never holds up
// the local sessions: a list change is published from a goroutine (with
// changes that pile up meanwhile published once), and a failure is only
// logged.

// Notice is a server-wide notification one instance passes on to the
// others (ServerOptions.Broadcast).
type Notice struct {
	// Origin names the server that produced it; the broadcast hands it to
	// the watchers as it is.
	Origin string
	// Method is notifications/resources/updated or one of
	// notifications/tools/list_changed, notifications/resources/list_changed
	// and notifications/prompts/list_changed.
	Method string
	// URI is the resource of notifications/resources/updated.
	URI string
}

// Broadcast carries server-wide notifications between the instances of a
// server (ServerOptions.Broadcast; package redisstore has one). It is
// called when the application says a resource was updated or changes a
// list, never on a request. Implementations must be safe for concurrent
// use.
type Broadcast interface {
	// PublishNotice sends n to every watcher of every instance (this
	// process's too).
	PublishNotice(ctx context.Context, n *Notice) error
	// WatchNotices calls f with every notice published from when it
	// returns nil until the broadcast is closed. f must not block.
	// Notices published while the broadcast is unreachable may be
	// missed.
	WatchNotices(ctx context.Context, f func(n *Notice)) error
}

const methodResourceUpdated = "notifications/resources/updated"

// maxInbound bounds the resource updates received from other instances
// and not yet told to the local sessions; more are dropped and logged.
const maxInbound = 1024

// broadcasting is a server's side of its Broadcast.
type broadcasting struct {
	mu         sync.Mutex
	publishing bool     // a goroutine publishes the list changes due
	due        uint32   // list changes to publish (changed… bits)
	inbound    []string // URIs of updates received, to tell the local sessions
	telling    bool     // a goroutine tells them
}

// publish sends n to the other instances, within ctx; a failure is
// logged.
func (s *Server) publish(ctx context.Context, n *Notice) {
	n.Origin = s.origin
	if err := s.opts.Broadcast.PublishNotice(ctx, n); err != nil {
		s.log.Warn("mcp: publishing a notification for the other instances; only this one's sessions got it", "method", n.Method, "err", err)
	}
}

// publishListChange publishes a list change from a goroutine, started only
// while there is something to publish.
func (s *Server) publishListChange(bit uint32) {
	b := &s.bcast
	b.mu.Lock()
	b.due |= bit
	start := !b.publishing
	b.publishing = true
	b.mu.Unlock()
	if start {
		go s.publishListChanges()
	}
}

func (s *Server) publishListChanges() {
	b := &s.bcast
	for {
		b.mu.Lock()
		due := b.due
		b.due = 0
		if due == 0 {
			b.publishing = false
			b.mu.Unlock()
			return
		}
		b.mu.Unlock()
		for _, m := range changedMethods {
			if due&m.bit != 0 {
				ctx, cancel := context.WithTimeout(context.Background(), watchTimeout)
				s.publish(ctx, &Notice{Method: m.method})
				cancel()
			}
		}
	}
}

// noticed is the watch's callback (it must not block): a notice from
// another instance is told to the local sessions.
func (s *Server) noticed(n *Notice) {
	if n.Origin == s.origin {
		return
	}
	if n.Method == methodResourceUpdated {
		s.queueInbound(n.URI)
		return
	}
	for _, m := range changedMethods {
		if m.method == n.Method {
			s.listChangedLocal(m.bit)
			return
		}
	}
}

// queueInbound queues an update of uri for the local sessions, in the
// order received.
func (s *Server) queueInbound(uri string) {
	b := &s.bcast
	b.mu.Lock()
	if len(b.inbound) >= maxInbound {
		b.mu.Unlock()
		s.log.Warn("mcp: too many resource updates from other instances pending; one dropped", "uri", uri)
		return
	}
	b.inbound = append(b.inbound, uri)
	start := !b.telling
	b.telling = true
	b.mu.Unlock()
	if start {
		go s.tellInbound()
	}
}

func (s *Server) tellInbound() {
	b := &s.bcast
	for {
		b.mu.Lock()
		if len(b.inbound) == 0 {
			b.telling = false
			b.inbound = nil
			b.mu.Unlock()
			return
		}
		uri := b.inbound[0]
		b.inbound = b.inbound[1:]
		b.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), watchTimeout)
		_ = s.resourceUpdatedLocal(ctx, uri)
		cancel()
	}
}
