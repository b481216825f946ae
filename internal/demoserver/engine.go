package demoserver

import (
	"context"
	"log/slog"

	"github.com/mcpwire/mcpwire/cache"
	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/pool"
)

// engine is what every session of the server shares: the worker pool, the
// server-wide admission limit in front of it, the response cache, and the
// connection options made of them.
type engine struct {
	pool      *pool.Pool
	admission pool.Admission
	// limit and inUse read the admission's limit and the slots in use,
	// for -metrics.
	limit, inUse func() int
	cache        *cache.Cache
	conn         *conn.Options
}

// newEngine builds the engine the flags ask for, its cache with co;
// close it with close.
//
// Every session has the same pool and the same admission. The admission
// admits at most what the pool can hold, its workers plus its queue
// (-adaptive: an adaptive limit up to that), so a request never waits
// inside the pool's Submit: a full server is met by the connection's own
// overload policy (-overload), which answers -32000 at once or stops
// reading, the same as a connection's -max-inflight.
func newEngine(cfg config, co *cache.Options, log *slog.Logger) (*engine, error) {
	p, err := pool.New(&pool.Options{Overload: cfg.overload})
	if err != nil {
		return nil, err
	}
	e := &engine{pool: p, cache: cache.New(co)}
	capacity := p.Cap() + p.QueueCap()
	if cfg.adaptive {
		a := pool.NewAdaptiveLimiter(&pool.AdaptiveOptions{
			MaxLimit:     capacity,
			InitialLimit: min(pool.DefaultInitialLimit, capacity),
		})
		e.admission, e.limit, e.inUse = a, a.Limit, a.InUse
	} else {
		l := pool.NewLimiter(capacity)
		e.admission, e.limit, e.inUse = l, l.Cap, l.InUse
	}
	e.conn = &conn.Options{
		Framing:     cfg.framing,
		Pool:        p,
		MaxInFlight: cfg.maxInFlight,
		Admission:   e.admission,
		Overload:    cfg.overload,
		Logger:      log,
	}
	return e, nil
}

// close waits for the pool's work to end (the sessions are done by then).
func (e *engine) close() error {
	return e.pool.Close(context.Background())
}
