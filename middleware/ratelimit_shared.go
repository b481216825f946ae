package middleware

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"

	"github.com/mcpwire/mcpwire/internal/principal"
)

// RateStore is a rate budget shared by the instances of a server (package
// redisstore has one in Redis): Allow takes one call from the budget of
// key, which refills at r calls per second up to burst, and reports
// whether the call was allowed and, when it was not, how long until the
// next one would be. A refused call costs the key nothing. An error means
// the store could not decide (it is unreachable, say); RateLimit then
// decides alone. Implementations must be safe for concurrent use and
// return within ctx's deadline.
type RateStore interface {
	Allow(ctx context.Context, key string, r rate.Limit, burst int) (ok bool, retryAfter time.Duration, err error)
}

// RateStoreRetry is how long RateLimit limits alone, with its own
// limiters, after its RateStore failed, before it asks the store again
// (with one call: the others go on alone until that one succeeds).
const RateStoreRetry = time.Second

// PrincipalKey is a RateOptions.Key for budgets per caller: the identity
// of the authenticated principal when the call's context carries one
// (PrincipalFromContext; a string, the same on every instance, that a
// RateStore shares), else PeerKey's. Over Streamable HTTP, HTTPAuth puts
// the principal in the context before any middleware runs; elsewhere,
// give RateLimit after Auth for this key to see it. A principal that is
// neither a string nor a fmt.Stringer (oauth.Principal is one) is known
// by its Go syntax, a pointer by its address: such a key is the same on
// one instance only.
func PrincipalKey(ctx context.Context) any {
	if id := principal.ID(ctx); id != "" {
		return id
	}
	return PeerKey(ctx)
}

// shared sends the budgets of string keys to a RateStore, and falls back
// to the local limiters while the store fails.
type shared struct {
	store RateStore
	limit rate.Limit
	burst int
	log   *slog.Logger
	// retryAt is when to ask a failing store again (unix nanoseconds);
	// zero while it answers.
	retryAt atomic.Int64
}

// allow asks the store about key. It returns ok=false, used=false when
// the store is not to be used now (failing): the caller decides alone.
func (s *shared) allow(ctx context.Context, key string, now time.Time) (ok bool, retryAfter time.Duration, used bool) {
	if at := s.retryAt.Load(); at != 0 {
		// Failing: one call per RateStoreRetry asks again, the others go
		// on alone.
		if now.UnixNano() < at || !s.retryAt.CompareAndSwap(at, now.Add(RateStoreRetry).UnixNano()) {
			return false, 0, false
		}
	}
	ok, retryAfter, err := s.store.Allow(ctx, key, s.limit, s.burst)
	if err != nil {
		// From now: the call may have taken the store's whole timeout.
		if s.retryAt.Swap(time.Now().Add(RateStoreRetry).UnixNano()) == 0 {
			s.log.LogAttrs(ctx, slog.LevelWarn, "rate limit: the shared budget store failed; each instance limits alone until it answers",
				slog.String("error", err.Error()))
		}
		return false, 0, false
	}
	if s.retryAt.Swap(0) != 0 {
		s.log.LogAttrs(ctx, slog.LevelInfo, "rate limit: the shared budget store answers again")
	}
	return ok, retryAfter, true
}
