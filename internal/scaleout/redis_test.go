package scaleout

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

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
// INFO's own aside (INFO commandstats: the sum of every cmdstat_*'s
// calls but cmdstat_info's).
func redisCommands(t *testing.T, rdb *redis.Client) int64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	text, err := rdb.Info(ctx, "commandstats").Result()
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for line := range strings.Lines(text) {
		name, stats, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok || !strings.HasPrefix(name, "cmdstat_") || name == "cmdstat_info" {
			continue
		}
		calls, _, _ := strings.Cut(strings.TrimPrefix(stats, "calls="), ",")
		v, err := strconv.ParseInt(calls, 10, 64)
		if err != nil {
			t.Fatalf("INFO commandstats: %q: %v", line, err)
		}
		n += v
	}
	return n
}
