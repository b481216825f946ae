package redisstore_test

import (
	"context"
	"sync/atomic"

	"github.com/redis/go-redis/v9"
)

// roundTrips counts the round trips a go-redis client makes: a command,
// or a pipeline, is one.
type roundTrips struct{ n atomic.Int64 }

func (c *roundTrips) DialHook(next redis.DialHook) redis.DialHook { return next }

func (c *roundTrips) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		c.n.Add(1)
		return next(ctx, cmd)
	}
}

func (c *roundTrips) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		c.n.Add(1)
		return next(ctx, cmds)
	}
}

// since returns the round trips made since mark, and a new mark.
func (c *roundTrips) since(mark int64) (int64, int64) {
	n := c.n.Load()
	return n - mark, n
}
