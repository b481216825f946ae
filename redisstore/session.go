package redisstore

import (
	"context"
	"errors"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mcpwire/mcpwire/mcp/streamable"
)

// foreverTTL is the time to live of a session created with no expiry
// (ttl <= 0): every key has one, and each Touch renews it.
const foreverTTL = 7 * 24 * time.Hour

// SessionStore returns the store's streamable.SessionStore: a session is
// a string key holding its state, whose time to live is the session's
// (Create, Touch); Touch also renews the time to live of the session's
// events (EventStore), so that they expire with it, and Delete tells
// every instance (WatchDeleted), whose handlers end their copies of the
// session at once.
//
// Redis down: every call fails within its context's deadline, or the
// store's Timeout when sooner. A handler goes on serving the sessions it
// holds (a failed Touch is logged), and answers a new session with 503
// and -32000 "session store unavailable; retry" (Retry-After), a request
// for a session it does not hold with 500; once Redis answers again, so
// does the store, with no restart. A deletion published while an
// instance's subscription was down does not reach it: its copy ends at
// its next Touch instead (at most a quarter of SessionTimeout later).
func (s *Store) SessionStore() streamable.SharedSessionStore { return sessionStore{s} }

type sessionStore struct{ s *Store }

// ttlMillis returns a session's time to live in milliseconds.
func ttlMillis(ttl time.Duration) int64 {
	if ttl <= 0 {
		ttl = foreverTTL
	}
	return max(ttl.Milliseconds(), 1)
}

func (ss sessionStore) Create(ctx context.Context, id string, state []byte, ttl time.Duration) error {
	s := ss.s
	ctx, cancel := s.bound(ctx)
	defer cancel()
	return s.rdb.Set(ctx, s.key("session", id), state, time.Duration(ttlMillis(ttl))*time.Millisecond).Err()
}

// touchScript renews a session's time to live, and its events': KEYS[1]
// is the session, KEYS[2] the set of its streams; ARGV[1] the time to
// live in ms, ARGV[2] and ARGV[3] the prefixes of its streams' event and
// meta keys. 0: no such session.
var touchScript = redis.NewScript(`
if redis.call('PEXPIRE', KEYS[1], ARGV[1]) == 0 then return 0 end
for _, st in ipairs(redis.call('ZRANGE', KEYS[2], 0, -1)) do
	redis.call('PEXPIRE', ARGV[2] .. st, ARGV[1])
	redis.call('PEXPIRE', ARGV[3] .. st, ARGV[1])
end
redis.call('PEXPIRE', KEYS[2], ARGV[1])
return 1`)

func (ss sessionStore) Touch(ctx context.Context, id string, ttl time.Duration) error {
	s := ss.s
	ctx, cancel := s.bound(ctx)
	defer cancel()
	n, err := touchScript.Run(ctx, s.rdb, []string{s.key("session", id), s.key("streams", id)},
		ttlMillis(ttl), s.key("events", id, ""), s.key("evmeta", id, "")).Int()
	if err != nil {
		return err
	}
	if n == 0 {
		return streamable.ErrSessionNotFound
	}
	return nil
}

func (ss sessionStore) Load(ctx context.Context, id string) ([]byte, error) {
	s := ss.s
	ctx, cancel := s.bound(ctx)
	defer cancel()
	b, err := s.rdb.Get(ctx, s.key("session", id)).Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, streamable.ErrSessionNotFound
	}
	return b, err
}

// deleteScript deletes KEYS[1] and publishes ARGV[2] on channel ARGV[1].
var deleteScript = redis.NewScript(`
redis.call('DEL', KEYS[1])
redis.call('PUBLISH', ARGV[1], ARGV[2])
return 1`)

// Delete forgets the session and tells every instance (WatchDeleted),
// in one round trip.
func (ss sessionStore) Delete(ctx context.Context, id string) error {
	s := ss.s
	ctx, cancel := s.bound(ctx)
	defer cancel()
	return deleteScript.Run(ctx, s.rdb, []string{s.key("session", id)}, s.channel("session-deleted"), id).Err()
}

// WatchDeleted implements streamable.SharedSessionStore over the store's
// bus (at most once: see Store).
func (ss sessionStore) WatchDeleted(ctx context.Context, f func(id string)) (func(), error) {
	return ss.s.subscribe(ctx, ss.s.channel("session-deleted"), f)
}
