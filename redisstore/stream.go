package redisstore

import (
	"context"
	"errors"
	"time"

	"github.com/redis/go-redis/v9"
)

// dedupWindow is how long a stream drops the repeats of an event
// published with the same dedup key (streamable.SharedEventStore).
const dedupWindow = time.Second

// Publish implements streamable.SharedEventStore: the store numbers the
// event, caps the stream, drops a repeat of dedupKey within dedupWindow
// (SET NX PX in the same script) and wakes the stream's watchers, in one
// round trip.
func (e *eventStore) Publish(ctx context.Context, session, stream string, data []byte, dedupKey string) (uint64, error) {
	return e.add(ctx, session, stream, 0, data, dedupKey)
}

// Watch implements streamable.SharedEventStore: a subscription to the
// stream's channel on the store's bus (a round trip for the first
// watcher of a stream in this process), then the stream's last number
// (one more), so that an event appended in between is not missed.
func (e *eventStore) Watch(ctx context.Context, session, stream string) (uint64, <-chan struct{}, func(), error) {
	s := e.s
	wake := make(chan struct{}, 1)
	stop, err := s.subscribe(ctx, s.channel("events", session, stream), func(string) {
		select {
		case wake <- struct{}{}:
		default:
		}
	})
	if err != nil {
		return 0, nil, nil, err
	}
	bctx, cancel := s.bound(ctx)
	defer cancel()
	last, err := s.rdb.HGet(bctx, s.key("evmeta", session, stream), "seq").Uint64()
	if err != nil && !errors.Is(err, redis.Nil) {
		stop()
		return 0, nil, nil, err
	}
	return last, wake, stop, nil
}
