package redisstore

import (
	"bytes"
	"context"
	"errors"
	"strconv"

	"github.com/redis/go-redis/v9"

	"github.com/mcpwire/mcpwire/mcp/streamable"
)

// EventStore returns the store's streamable.EventStore, shared by the
// instances (streamable.SharedEventStore: see stream.go). Each stream of
// a session keeps its events in a sorted set (score: the event's number)
// beside a hash of its last number and its bytes, capped per stream as a
// streamable.MemoryEventStore caps a session: past maxEvents events or
// maxBytes bytes of data (0: streamable.DefaultMaxSessionEvents,
// streamable.DefaultMaxSessionEventsBytes), a stream's oldest events are
// dropped, never its newest; and a session keeps the events of its
// maxStreams most recent streams. The events live as long as their session's
// key (SessionStore of the same Store: each append copies its time to
// live, each Touch renews it; without one, streamable.DefaultSessionTimeout),
// and Forget drops them.
//
// Redis down: Append and Publish fail (the handler logs it; an event
// published by a session with its GET on this instance is still
// delivered, without an id), and so do After and Watch (a resumption is
// answered with 500): each within its context's deadline or the store's
// Timeout. Once Redis answers again, so does the store.
func (s *Store) EventStore(maxEvents, maxBytes int) streamable.SharedEventStore {
	if maxEvents <= 0 {
		maxEvents = streamable.DefaultMaxSessionEvents
	}
	if maxBytes <= 0 {
		maxBytes = streamable.DefaultMaxSessionEventsBytes
	}
	return &eventStore{s: s, maxEvents: maxEvents, maxBytes: maxBytes}
}

// maxStreams bounds the streams a session keeps events of: past it, the
// events of the stream appended to least recently go (a POST's stream,
// never the standalone stream), so that a long session's POSTs do not
// pile up. A session holds at most maxStreams times maxBytes of data.
const maxStreams = 32

type eventStore struct {
	s                   *Store
	maxEvents, maxBytes int
}

// appendScript appends an event to a stream. KEYS: the session, the
// stream's events (zset), its meta (hash: seq, bytes), the session's set
// of streams, and, to drop repeats, the dedup key. ARGV: the stream's
// name, the data, the event's number (0: the next), maxEvents, maxBytes,
// the time to live in ms when the session has none, the channel to wake
// watchers on, the dedup window in ms, maxStreams and the prefixes of the
// session's event and meta keys. It returns the event's number, 0 for a
// repeat. The set of streams (a zset) scores a stream by its last append,
// +inf for a stream the store numbers (Publish): those are never dropped
// for newer ones, whose numbers would start again from 1.
var appendScript = redis.NewScript(`
if #KEYS == 5 and not redis.call('SET', KEYS[5], '1', 'NX', 'PX', ARGV[8]) then return 0 end
local ttl = redis.call('PTTL', KEYS[1])
if ttl <= 0 then ttl = tonumber(ARGV[6]) end
local seq = tonumber(ARGV[3])
if seq == 0 then
	seq = redis.call('HINCRBY', KEYS[3], 'seq', 1)
elseif seq > tonumber(redis.call('HGET', KEYS[3], 'seq') or '0') then
	redis.call('HSET', KEYS[3], 'seq', seq)
end
redis.call('ZADD', KEYS[2], seq, seq .. ':' .. ARGV[2])
local n = redis.call('ZCARD', KEYS[2])
local size = redis.call('HINCRBY', KEYS[3], 'bytes', #ARGV[2])
local maxn, maxb = tonumber(ARGV[4]), tonumber(ARGV[5])
while n > maxn or (size > maxb and n > 1) do
	local m = redis.call('ZPOPMIN', KEYS[2])[1]
	size = size - (#m - string.find(m, ':', 1, true))
	n = n - 1
end
redis.call('HSET', KEYS[3], 'bytes', size)
local score = '+inf'
if ARGV[3] ~= '0' then
	local t = redis.call('TIME')
	score = string.format('%s.%06d', t[1], tonumber(t[2]))
end
redis.call('ZADD', KEYS[4], score, ARGV[1])
while redis.call('ZCARD', KEYS[4]) > tonumber(ARGV[9]) do
	local old = redis.call('ZPOPMIN', KEYS[4])[1]
	redis.call('DEL', ARGV[10] .. old, ARGV[11] .. old)
end
redis.call('PEXPIRE', KEYS[2], ttl)
redis.call('PEXPIRE', KEYS[3], ttl)
redis.call('PEXPIRE', KEYS[4], ttl)
redis.call('PUBLISH', ARGV[7], seq)
return seq`)

// add runs appendScript: one round trip.
func (e *eventStore) add(ctx context.Context, session, stream string, seq uint64, data []byte, dedupKey string) (uint64, error) {
	s := e.s
	ctx, cancel := s.bound(ctx)
	defer cancel()
	keys := []string{s.key("session", session), s.key("events", session, stream), s.key("evmeta", session, stream), s.key("streams", session)}
	if dedupKey != "" {
		keys = append(keys, s.key("dedup", session, stream, dedupKey))
	}
	n, err := appendScript.Run(ctx, s.rdb, keys, stream, data, seq, e.maxEvents, e.maxBytes,
		streamable.DefaultSessionTimeout.Milliseconds(), s.channel("events", session, stream), dedupWindow.Milliseconds(),
		maxStreams, s.key("events", session, ""), s.key("evmeta", session, "")).Uint64()
	return n, err
}

// Append implements streamable.EventStore: event seq, numbered by the
// caller.
func (e *eventStore) Append(ctx context.Context, session, stream string, seq uint64, data []byte) error {
	if seq == 0 {
		return errors.New("redisstore: an event's number starts at 1")
	}
	_, err := e.add(ctx, session, stream, seq, data, "")
	return err
}

// After implements streamable.EventStore: one round trip.
func (e *eventStore) After(ctx context.Context, session, stream string, seq uint64) ([]streamable.StoredEvent, error) {
	s := e.s
	ctx, cancel := s.bound(ctx)
	defer cancel()
	ms, err := s.rdb.ZRangeByScore(ctx, s.key("events", session, stream), &redis.ZRangeBy{
		Min: "(" + strconv.FormatUint(seq, 10), Max: "+inf",
	}).Result()
	if err != nil {
		return nil, err
	}
	out := make([]streamable.StoredEvent, 0, len(ms))
	for _, m := range ms {
		num, data, ok := bytes.Cut([]byte(m), []byte{':'})
		n, err := strconv.ParseUint(string(num), 10, 64)
		if !ok || err != nil {
			return nil, errors.New("redisstore: a stored event is damaged")
		}
		out = append(out, streamable.StoredEvent{Seq: n, Data: data})
	}
	return out, nil
}

// forgetScript deletes a session's streams: KEYS[1] is the set of them,
// ARGV[1] and ARGV[2] the prefixes of their event and meta keys.
var forgetScript = redis.NewScript(`
for _, st in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
	redis.call('DEL', ARGV[1] .. st, ARGV[2] .. st)
end
redis.call('DEL', KEYS[1])
return 1`)

// Forget implements streamable.EventStore: one round trip.
func (e *eventStore) Forget(ctx context.Context, session string) error {
	s := e.s
	ctx, cancel := s.bound(ctx)
	defer cancel()
	return forgetScript.Run(ctx, s.rdb, []string{s.key("streams", session)},
		s.key("events", session, ""), s.key("evmeta", session, "")).Err()
}
