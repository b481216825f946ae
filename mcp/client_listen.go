package mcp

import (
	"context"
	"slices"
	"sync"
	"time"
)

// Under a stateless version the server announces list changes and
// resource updates only on a subscriptions/listen stream. A session of
// such a version keeps one open while it has a reason to: a list whose
// changes a ClientOptions handler wants (ToolListChangedHandler,
// PromptListChangedHandler, ResourceListChangedHandler) and the server
// declares listChanged for, or resources Subscribe named. Connect,
// Subscribe and Unsubscribe return once the server has acknowledged the
// stream they open (or after listenAckWait): a change made after they
// return reaches the session. The stream's
// notifications reach the same handlers, and make the session's cached
// lists stale, as under the older versions. Subscribe and Unsubscribe
// replace the stream with one of the new filter (the server keeps no
// subscription state of its own); the session's end ends it.

// listening is a stateless session's subscription: the filter of the
// stream open, and how to end it.
type listening struct {
	mu     sync.Mutex
	uris   []string           // resources Subscribe named
	cancel context.CancelFunc // ends the open stream, or nil
	done   chan struct{}      // closed when the open stream's goroutine has returned
	acked  chan struct{}      // closed when the open stream is acknowledged

	ackMu sync.Mutex // guards closing acked: the acknowledgement's handler
}

// listenAckWait bounds how long Connect, Subscribe and Unsubscribe wait
// for the server to acknowledge the stream they open: from then on, no
// change is missed.
const listenAckWait = time.Second

// acknowledged is told that the open stream is acknowledged (the
// notification's handler): one stream is open at a time.
func (l *listening) acknowledged() {
	l.ackMu.Lock()
	defer l.ackMu.Unlock()
	if l.acked != nil {
		select {
		case <-l.acked:
		default:
			close(l.acked)
		}
	}
}

// await waits until the stream relisten opened is acknowledged, has
// ended, ctx is done or listenAckWait has passed. s.listen.mu must be
// held.
func (l *listening) await(ctx context.Context) {
	if l.cancel == nil {
		return
	}
	l.ackMu.Lock()
	acked := l.acked
	l.ackMu.Unlock()
	t := time.NewTimer(listenAckWait)
	defer t.Stop()
	select {
	case <-acked:
	case <-l.done:
	case <-ctx.Done():
	case <-t.C:
	}
}

// filter returns what the session's stream asks for: the lists whose
// changes a handler wants and the server announces, and the resources
// subscribed to.
func (s *ClientSession) filter() SubscriptionFilter {
	o, c := &s.client.opts, s.init.Capabilities
	var f SubscriptionFilter
	f.ToolsListChanged = o.ToolListChangedHandler != nil && c.Tools != nil && c.Tools.ListChanged
	f.PromptsListChanged = o.PromptListChangedHandler != nil && c.Prompts != nil && c.Prompts.ListChanged
	f.ResourcesListChanged = o.ResourceListChangedHandler != nil && c.Resources != nil && c.Resources.ListChanged
	f.ResourceSubscriptions = slices.Clone(s.listen.uris)
	return f
}

// relisten replaces the session's stream with one of its current filter,
// or with none when the filter is empty. s.listen.mu must be held.
func (s *ClientSession) relisten() {
	l := &s.listen
	if l.cancel != nil {
		l.cancel()
		<-l.done // its cancellation is sent before the next stream opens
		l.cancel = nil
	}
	f := s.filter()
	if !f.ToolsListChanged && !f.PromptsListChanged && !f.ResourcesListChanged && len(f.ResourceSubscriptions) == 0 {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	l.cancel, l.done = cancel, done
	l.ackMu.Lock()
	l.acked = make(chan struct{})
	l.ackMu.Unlock()
	go func() {
		defer close(done)
		// It returns when the server ends the stream (an answer), when
		// the session or relisten cancels it (the server is told, and
		// answers nothing), or when the connection ends.
		_ = s.send(ctx, "subscriptions/listen", &ListenParams{Notifications: f}, nil)
	}()
}

// subscribeStateless serves Subscribe (add) and Unsubscribe under a
// stateless version: it returns once the new stream is acknowledged (or
// ctx is done, or listenAckWait has passed).
func (s *ClientSession) subscribeStateless(ctx context.Context, uri string, add bool) error {
	if c := s.init.Capabilities; add && (c.Resources == nil || !c.Resources.Subscribe) {
		return ErrNotSupported
	}
	l := &s.listen
	l.mu.Lock()
	defer l.mu.Unlock()
	i := slices.Index(l.uris, uri)
	switch {
	case add && i < 0:
		l.uris = append(l.uris, uri)
	case !add && i >= 0:
		l.uris = slices.Delete(l.uris, i, i+1)
	default:
		return nil
	}
	s.relisten()
	l.await(ctx)
	return nil
}
