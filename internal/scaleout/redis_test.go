package scaleout

import (
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/mcpwire/mcpwire/redisstore"
)

// redisClient returns a client of the cluster's redis-server, closed
// when the test ends.
func (c *cluster) redisClient(t *testing.T) *redis.Client {
	t.Helper()
	rdb, err := redisstore.Dial(c.redis.URL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rdb.Close() })
	return rdb
}

// redisCommands returns how many commands the redis-server has run,
// INFO's aside (redistest.Server.Commands).
func (c *cluster) redisCommands(t *testing.T) int64 {
	t.Helper()
	n, err := c.redis.Commands()
	if err != nil {
		t.Fatal(err)
	}
	return n[""]
}
