package redisstore

import (
	"context"
	"sync"

	"github.com/redis/go-redis/v9"
)

// bus carries messages between instances over Redis pub/sub, on one
// connection for the whole store. Delivery is at most once: a message
// published while an instance's subscription is down (Redis restarting,
// say) does not reach it, so what must not be lost is also kept in a key
// and the bus only says when to look again. go-redis reconnects and
// subscribes again by itself.
type bus struct {
	s *Store

	mu       sync.Mutex
	ps       *redis.PubSub // nil until the first subscription
	handlers map[string]map[*handler]struct{}
	done     chan struct{}
	closed   bool
}

// handler is one subscriber's function, told apart by its pointer.
type handler struct{ f func(payload string) }

func newBus(s *Store) *bus {
	return &bus{s: s, handlers: map[string]map[*handler]struct{}{}, done: make(chan struct{})}
}

// channel returns the name of a channel of the store: the prefix, "ch:"
// and the parts joined with colons.
func (s *Store) channel(parts ...string) string { return s.key("ch", parts...) }

// publish sends payload to the subscribers of channel on every instance
// (this one included).
func (s *Store) publish(ctx context.Context, channel string, payload string) error {
	ctx, cancel := s.bound(ctx)
	defer cancel()
	return s.rdb.Publish(ctx, channel, payload).Err()
}

// subscribe calls f (on the bus's goroutine: it must not block) with every
// message published to channel until the returned function is called.
func (s *Store) subscribe(ctx context.Context, channel string, f func(payload string)) (unsubscribe func(), err error) {
	b := s.bus
	h := &handler{f: f}
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil, redis.ErrClosed
	}
	hs := b.handlers[channel]
	first := hs == nil
	if first {
		hs = map[*handler]struct{}{}
		b.handlers[channel] = hs
	}
	hs[h] = struct{}{}
	ps, start := b.ps, b.ps == nil
	if start {
		ps = b.s.rdb.Subscribe(context.Background())
		b.ps = ps
	}
	b.mu.Unlock()
	if start {
		go b.run(ps.Channel())
	}
	if first {
		ctx, cancel := s.bound(ctx)
		defer cancel()
		if err := ps.Subscribe(ctx, channel); err != nil {
			b.remove(channel, h)
			return nil, err
		}
	}
	return func() { b.remove(channel, h) }, nil
}

// remove drops h from channel's subscribers, and the subscription with
// the last one.
func (b *bus) remove(channel string, h *handler) {
	b.mu.Lock()
	hs := b.handlers[channel]
	delete(hs, h)
	last := hs != nil && len(hs) == 0
	if last {
		delete(b.handlers, channel)
	}
	ps, closed := b.ps, b.closed
	b.mu.Unlock()
	if last && ps != nil && !closed {
		ctx, cancel := b.s.bound(context.Background())
		defer cancel()
		_ = ps.Unsubscribe(ctx, channel)
	}
}

// run hands each message to the handlers of its channel.
func (b *bus) run(msgs <-chan *redis.Message) {
	for m := range msgs {
		b.mu.Lock()
		fs := make([]func(string), 0, len(b.handlers[m.Channel]))
		for h := range b.handlers[m.Channel] {
			fs = append(fs, h.f)
		}
		b.mu.Unlock()
		for _, f := range fs {
			f(m.Payload)
		}
	}
	close(b.done)
}

// close ends the subscriptions and waits for run to return.
func (b *bus) close() error {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil
	}
	b.closed = true
	ps := b.ps
	b.mu.Unlock()
	if ps == nil {
		return nil
	}
	err := ps.Close()
	<-b.done
	return err
}
