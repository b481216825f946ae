package demoserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"regexp"
	"sync"
	"time"

	"github.com/mcpwire/mcpwire/cache"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/mcp/streamable"
	"github.com/mcpwire/mcpwire/middleware"
	"github.com/mcpwire/mcpwire/redisstore"
)

// sharable are the options of the parts of the demo server whose state
// several instances can share. serve makes them before it builds those
// parts, gives them to shareThrough with -redis, then to the parts:
// newEngine (cache), the guard (rate), newDemo (server) and serveHTTP
// (http). Without -redis they hold what the parts had always been given.
type sharable struct {
	server mcp.ServerOptions      // the MCP server's: its tasks, its sessions' state and notifications
	http   streamable.Options     // /mcp's and /sse's: sessions and their events
	cache  cache.Options          // the response cache's: its second tier
	rate   middleware.RateOptions // -rate's: a budget shared by every instance
	tasks  mcp.TaskOptions        // server.Tasks points here
}

// newSharable returns the options cfg gives the sharable parts.
func newSharable(cfg config) *sharable {
	o := &sharable{http: *sessionOptions(cfg), tasks: taskOptions}
	o.server.Tasks = &o.tasks
	return o
}

// shareThrough is THE place where the Redis store is applied to the demo
// server: one line per store, on the options newSharable made, before any
// part is built from them. Each store's own documentation says what it
// does while Redis is down. (The requestState key ring needs the server:
// shareKeys, once it is built.)
func (l *redisLink) shareThrough(o *sharable, log *slog.Logger) {
	st := l.st
	l.tier = st.CacheTier(&redisstore.CacheTierOptions{Logger: log})
	o.cache.Tier = l.tier
	o.http.SessionStore = st.SessionStore()
	o.http.EventStore = st.EventStore(o.http.MaxSessionEvents, o.http.MaxSessionEventBytes)
	o.server.SessionState = st
	o.server.Broadcast = st
	o.tasks.Store = st.TaskStore()
	o.rate.Store = st.RateBudgets("calls")
	o.rate.Key = middleware.PrincipalKey
}

// instanceNamePattern is what -instance accepts: a name that reads the
// same in a log line, a metric's label and a Redis key.
var instanceNamePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// instanceName returns -instance's value, or without one
// redisstore.DefaultInstance ("HOST-PID").
func instanceName(flag string) string {
	if flag != "" {
		return flag
	}
	return redisstore.DefaultInstance()
}

// checkRedisURL checks -redis's URL as redisstore.Dial reads it, and
// -instance's name. Its error never repeats the URL (which may hold a
// password).
func checkRedisURL(raw string) error {
	c, err := redisstore.Dial(raw)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return fmt.Errorf("-redis: want redis://[USER:PASSWORD@]HOST:PORT/DB or rediss://…: %v", err)
	}
	return c.Close()
}

// redisPingEvery is how often a server whose Redis does not answer
// checks again, to log when it does.
const redisPingEvery = time.Second

// redisLink is -redis's connection: the go-redis client, the Store over
// it, and the goroutine that logs when Redis comes back.
type redisLink struct {
	st      *redisstore.Store
	close   func() error
	ctx     context.Context // ends with stop
	stop    context.CancelFunc
	watcher sync.WaitGroup
	ring    *redisstore.KeyRing // shareKeys', once made (set before watcher ends)
	tier    *redisstore.CacheTier
}

// openRedis dials -redis and makes the Store (nil, nil without -redis).
// A Redis that does not answer PING is no reason to refuse to start: the
// instance serves on, logs an error now and an info line once Redis
// answers, and each store it shares says what it does meanwhile
// (docs/scale-out.md, "Failure modes"). Close it with close.
func openRedis(ctx context.Context, cfg config, log *slog.Logger) (*redisLink, error) {
	if cfg.redis == "" {
		return nil, nil
	}
	rdb, err := redisstore.Dial(cfg.redis)
	if err != nil {
		return nil, checkRedisURL(cfg.redis) // the same error, without the URL
	}
	st := redisstore.New(rdb, &redisstore.Options{Prefix: cfg.redisPrefix, Instance: cfg.instance})
	wctx, stop := context.WithCancel(ctx)
	l := &redisLink{st: st, ctx: wctx, stop: stop, close: func() error { return errors.Join(st.Close(), rdb.Close()) }}
	where := rdb.Options().Addr
	if err := st.Ping(ctx); err != nil {
		log.Error("redis does not answer: serving on, sharing nothing until it does", "redis", where, "prefix", cfg.redisPrefix, "err", err)
		l.retry(func() bool {
			if l.st.Ping(wctx) != nil {
				return false
			}
			log.Info("redis answers now: sharing state through it", "redis", where)
			return true
		})
	} else {
		log.Info("redis answers: sharing state through it", "redis", where, "prefix", cfg.redisPrefix)
	}
	return l, nil
}

// retry calls f every redisPingEvery, on the link's watcher goroutine,
// until it reports done or the link shuts down.
func (l *redisLink) retry(f func() (done bool)) {
	l.watcher.Go(func() {
		t := time.NewTicker(redisPingEvery)
		defer t.Stop()
		for {
			select {
			case <-l.ctx.Done():
				return
			case <-t.C:
			}
			if f() {
				return
			}
		}
	})
}

// shareKeys gives srv the requestState key ring every instance shares
// (redisstore.KeyRing), so that a state one instance sealed opens on any
// other. While Redis cannot be read, srv seals with a key of its own
// (its states open on this instance only) and the ring is asked for
// again every redisPingEvery until it answers. A nil link does nothing.
func (l *redisLink) shareKeys(ctx context.Context, srv *mcp.Server, log *slog.Logger) {
	if l == nil {
		return
	}
	attach := func(ctx context.Context) bool {
		ring, err := l.st.KeyRing(ctx, &redisstore.KeyRingOptions{Logger: log})
		if err == nil {
			err = ring.Attach(srv)
			if err == nil {
				l.ring = ring
				return true
			}
			ring.Close()
		}
		log.Warn("requestState keys not shared yet: this instance seals with its own", "err", err)
		return false
	}
	if attach(ctx) {
		return
	}
	l.retry(func() bool {
		if !attach(l.ctx) {
			return false
		}
		log.Info("requestState keys shared through redis now")
		return true
	})
}

// shutdown stops the watcher and the key ring and closes the Store and
// its client. A nil link does nothing.
func (l *redisLink) shutdown() error {
	if l == nil {
		return nil
	}
	l.stop()
	l.watcher.Wait()
	if l.ring != nil {
		l.ring.Close()
	}
	if l.tier != nil {
		l.tier.Close()
	}
	return l.close()
}

// upFunc returns a function reporting whether Redis answers PING now
// (within the store's timeout), for -metrics; nil for a nil link.
func (l *redisLink) upFunc() func() bool {
	if l == nil {
		return nil
	}
	return func() bool { return l.st.Ping(context.Background()) == nil }
}
