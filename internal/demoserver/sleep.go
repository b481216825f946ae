package demoserver

import (
	"context"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/mcpwire/mcpwire/cache"
	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/router"
)

// The load methods: sleep and cached_sleep hold a worker for as long as
// the caller asks, so that backpressure, cancellation and the response
// cache can be seen from outside the process.

const (
	// maxSleepMS bounds the ms param of sleep and cached_sleep.
	maxSleepMS = 10_000
	// cachedSleepTTL is how long cached_sleep's answers are kept.
	cachedSleepTTL = 60 * time.Second
)

// sleepParams are sleep's params: {"ms": N}, or [N]. The members are
// pointers so that a missing member and null are told from zero.
type sleepParams struct {
	MS *int `json:"ms"`
}

// cachedSleepParams are cached_sleep's params: {"ms": N, "key": KEY}, or
// [N, KEY].
type cachedSleepParams struct {
	MS  *int    `json:"ms"`
	Key *string `json:"key"`
}

// cachedSleepResult is cached_sleep's result. Runs is how many times the
// handler has run in the process, this run included: a hit, or a call
// that shared another's run, answers the Runs of the run it got.
type cachedSleepResult struct {
	MS   int    `json:"ms"`
	Key  string `json:"key"`
	Runs int64  `json:"runs"`
}

// registerLoadMethods adds sleep (on the pool) and cached_sleep (on the
// pool, behind c with a TTL of cachedSleepTTL; with a nil c it runs every
// call) to s as plain JSON-RPC methods; runs counts cached_sleep's runs. Both stop sleeping when their
// context ends (the peer cancelled the request, its session ended, the
// server shut down past its deadline) and return its error, which the
// connection answers -32005, or not at all under MCP's cancellation.
func registerLoadMethods(s *mcp.Server, c *cache.Cache, runs *atomic.Int64) error {
	if err := s.AddPlainMethod("sleep", router.Func(func(ctx context.Context, p sleepParams) (int, error) {
		ms, err := sleepMS(p.MS)
		if err != nil {
			return 0, err
		}
		return ms, pause(ctx, time.Duration(ms)*time.Millisecond)
	}), nil); err != nil {
		return err
	}
	var opts *router.MethodOptions
	if c != nil {
		opts = &router.MethodOptions{Cache: c.Method(cachedSleepTTL)}
	}
	return s.AddPlainMethod("cached_sleep", router.Func(func(ctx context.Context, p cachedSleepParams) (*cachedSleepResult, error) {
		ms, err := sleepMS(p.MS)
		if err != nil {
			return nil, err
		}
		if p.Key == nil {
			return nil, invalidMember("key", "missing or null: want a string")
		}
		r := &cachedSleepResult{MS: ms, Key: *p.Key, Runs: runs.Add(1)}
		if err := pause(ctx, time.Duration(ms)*time.Millisecond); err != nil {
			return nil, err // an error is never stored: the next call runs again
		}
		return r, nil
	}), opts)
}

// sleepMS checks the ms member: present, not null, within 0..maxSleepMS.
// (An ms that is no integer at all is refused by the router, -32602
// naming the field.)
func sleepMS(ms *int) (int, error) {
	const want = "want an integer number of milliseconds from 0 to 10000"
	switch {
	case ms == nil:
		return 0, invalidMember("ms", "missing or null: "+want)
	case *ms < 0 || *ms > maxSleepMS:
		return 0, invalidMember("ms", want+", got "+strconv.Itoa(*ms))
	}
	return *ms, nil
}

// invalidMember is the -32602 answer for a params member that is missing,
// null or out of range, worded as the router words its own.
func invalidMember(field, why string) *codec.Error {
	return codec.NewError(codec.CodeInvalidParams, "invalid params: field "+strconv.Quote(field)+": "+why).
		WithData(map[string]any{"field": field})
}
