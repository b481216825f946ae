package redisstore

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// Defaults of Options.
const (
	DefaultPrefix  = "mcpwire:"
	DefaultTimeout = time.Second
)

// Options configure a Store. A nil *Options gives the defaults; New
// copies the value.
type Options struct {
	// Prefix starts every key and channel the store uses (default
	// DefaultPrefix): servers that share a Redis but not their state
	// each get their own.
	Prefix string
	// Instance names this process among the instances sharing the store
	// (default: DefaultInstance). It is what messages meant
	// for one instance are addressed to.
	Instance string
	// Timeout bounds each call to Redis whose context has no sooner
	// deadline (default DefaultTimeout).
	Timeout time.Duration
}

// Store is the shared state of the instances of a server in one Redis.
// Safe for concurrent use; Close it when done.
type Store struct {
	rdb      redis.UniversalClient
	prefix   string
	instance string
	timeout  time.Duration
	bus      *bus
}

// New returns a store over rdb, which stays the caller's (Close does not
// close it).
func New(rdb redis.UniversalClient, opts *Options) *Store {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Prefix == "" {
		o.Prefix = DefaultPrefix
	}
	if o.Instance == "" {
		o.Instance = DefaultInstance()
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	s := &Store{rdb: rdb, prefix: o.Prefix, instance: o.Instance, timeout: o.Timeout}
	s.bus = newBus(s)
	return s
}

// Dial returns a go-redis client for a redis:// (or rediss://, TLS) URL
// such as redis://user:password@host:6379/0, with the timeouts this
// package relies on: a call ends at its context's deadline
// (ContextTimeoutEnabled), and dialing, reading and writing each give up
// after a second.
func Dial(url string) (*redis.Client, error) {
	o, err := redis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("redisstore: %w", err)
	}
	o.ContextTimeoutEnabled = true
	if o.DialTimeout == 0 || o.DialTimeout > time.Second {
		o.DialTimeout = time.Second
	}
	if o.ReadTimeout == 0 || o.ReadTimeout > time.Second {
		o.ReadTimeout = time.Second
	}
	if o.WriteTimeout == 0 || o.WriteTimeout > time.Second {
		o.WriteTimeout = time.Second
	}
	return redis.NewClient(o), nil
}

// Client returns the go-redis client the store uses.
func (s *Store) Client() redis.UniversalClient { return s.rdb }

// Instance returns the name of this instance (Options.Instance).
func (s *Store) Instance() string { return s.instance }

// Prefix returns the prefix of the store's keys (Options.Prefix).
func (s *Store) Prefix() string { return s.prefix }

// Ping reports whether Redis answers, within the store's timeout.
func (s *Store) Ping(ctx context.Context) error {
	ctx, cancel := s.bound(ctx)
	defer cancel()
	return s.rdb.Ping(ctx).Err()
}

// Close stops the store's subscriptions. The client stays open.
func (s *Store) Close() error {
	return s.bus.close()
}

// bound returns ctx with the store's timeout unless its own deadline is
// sooner.
func (s *Store) bound(ctx context.Context) (context.Context, context.CancelFunc) {
	if d, ok := ctx.Deadline(); ok && time.Until(d) <= s.timeout {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, s.timeout)
}

// key returns the key of a kind of record ("session", "events"…) named by
// parts: the prefix, the kind and the parts joined with colons.
func (s *Store) key(kind string, parts ...string) string {
	n := len(s.prefix) + len(kind)
	for _, p := range parts {
		n += 1 + len(p)
	}
	b := make([]byte, 0, n)
	b = append(b, s.prefix...)
	b = append(b, kind...)
	for _, p := range parts {
		b = append(b, ':')
		b = append(b, p...)
	}
	return string(b)
}
