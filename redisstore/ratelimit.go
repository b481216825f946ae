package redisstore

import (
	"context"
	"errors"
	"math"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
	"golang.org/x/time/rate"

	"github.com/mcpwire/mcpwire/middleware"
)

// RateBudgets are rate budgets kept in Redis for every instance sharing
// the store: a middleware.RateStore for middleware.RateOptions.Store.
// Each Allow is one round trip (one Lua script: GCRA, the generic cell
// rate algorithm, on Redis's clock, so the instances' clocks need not
// agree), and writes one key per budget whose time to live is the time
// its burst takes to refill: an idle peer's budget leaves nothing behind.
// Safe for concurrent use.
//
// When Redis is down, Allow returns an error within the call's deadline
// (and the store's timeout); RateLimit then limits with its own,
// per-instance limiters (each instance enforces the whole budget alone)
// and asks Redis again a second later, so the shared budgets come back
// by themselves.
type RateBudgets struct {
	s    *Store
	name string
}

var _ middleware.RateStore = (*RateBudgets)(nil)

// RateBudgets returns the budgets named name: the RateLimit middlewares
// of the instances that share a budget use the same name, and those that
// do not (one per method group, say) different ones. name is not empty
// and has no colon; RateBudgets panics otherwise, as on any error in a
// program's configuration.
func (s *Store) RateBudgets(name string) *RateBudgets {
	if name == "" || strings.Contains(name, ":") {
		panic("redisstore: a rate budget's name is empty or has a colon: " + name)
	}
	return &RateBudgets{s: s, name: name}
}

// gcra takes one call from the budget in KEYS[1], a theoretical arrival
// time in microseconds on Redis's clock. ARGV[1] is the emission
// interval (the microseconds between two calls at the rate), ARGV[2] the
// burst. It answers {1, 0} and moves the arrival time on when the call is
// allowed, and {0, microseconds until the next allowed call} when not,
// leaving the key as it was. Times are whole microseconds, formatted with
// %.0f since Lua numbers are doubles (exact up to 2^53 µs, 285 years).
var gcra = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local interval = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
if tat < now then tat = now end
local next = tat + interval
local allowAt = next - burst * interval
if allowAt > now then
	return {0, allowAt - now}
end
redis.call('SET', KEYS[1], string.format('%.0f', next), 'PX', math.ceil((next - now) / 1000))
return {1, 0}
`)

// errRate is Allow's error for a rate it cannot share.
var errRate = errors.New("redisstore: a shared rate budget needs a finite rate above 0")

// Allow takes one call from key's budget of r calls per second with
// bursts of burst (at least 1), for every instance sharing the store. It
// reports whether the call is allowed and, if not, how long until the
// next one would be; a refused call costs nothing. A rate of 0 or less
// (never refilling) or rate.Inf is an error: RateLimit never asks for it.
func (b *RateBudgets) Allow(ctx context.Context, key string, r rate.Limit, burst int) (bool, time.Duration, error) {
	if r <= 0 || r == rate.Inf {
		return false, 0, errRate
	}
	interval := int64(math.Ceil(1e6 / float64(r)))
	ctx, cancel := b.s.bound(ctx)
	defer cancel()
	res, err := gcra.Run(ctx, b.s.rdb, []string{b.s.key("rate", b.name, key)}, max(interval, 1), max(burst, 1)).Int64Slice()
	if err != nil {
		return false, 0, err
	}
	if len(res) != 2 {
		return false, 0, errors.New("redisstore: the rate script answered an unexpected reply")
	}
	return res[0] == 1, time.Duration(res[1]) * time.Microsecond, nil
}
