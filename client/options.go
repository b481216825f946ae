package client

import (
	"math/rand/v2"
	"time"

	"github.com/mcpwire/mcpwire/conn"
)

// Default values of Options.
const (
	DefaultSessions        = 1
	DefaultMaxAttempts     = 3
	DefaultRetryBase       = 50 * time.Millisecond
	DefaultRetryMax        = 2 * time.Second
	DefaultRedialBase      = 100 * time.Millisecond
	DefaultRedialMax       = 5 * time.Second
	DefaultCacheTTL        = time.Minute
	DefaultCacheMaxEntries = 1024
	DefaultCacheMaxBytes   = 8 << 20
)

// Options configure a Client. A nil *Options gives the defaults; New
// copies the value (and the slices and options it points to), so later
// changes have no effect.
type Options struct {
	// Session configures every session the client opens (nil: conn's
	// defaults): Router serves the server's own calls and notifications
	// to the client; Limits bound what the server sends (a response over
	// Limits.MaxFrameBytes is dropped and counted, and its call waits for
	// its deadline); Framing frames the byte streams of Dial and
	// DialCommand (a DialFunc's streams bring their own); Logger,
	// WriteTimeout and the rest apply as they do to any session. Its
	// Metrics and OnUnmatched are called too, after the client's own
	// counting.
	Session *conn.Options
	// Sessions is how many sessions the client may hold open at once
	// (default 1). A call goes to the open session with the fewest calls
	// pending; another is opened only while every open one has calls
	// pending.
	Sessions int
	// Timeout bounds a call, a batch or a notification whose context has
	// no deadline: every attempt and the waits between them (default:
	// none; the context alone decides).
	Timeout time.Duration
	// Idempotent names the methods whose calls may be retried (see
	// Retry); the Idempotent call option marks a single call so.
	Idempotent []string
	// Retry bounds and paces the retries of idempotent calls.
	Retry Retry
	// Redial paces the dials that follow a failed one: the next dial of
	// that session waits a random time of up to Base, doubling with each
	// failure in a row up to Max (defaults 100ms, 5s). A call that cannot
	// wait that long within its deadline fails at once with the last
	// dial's error.
	Redial Backoff
	// Cache, if set, keeps the results of the methods it names.
	Cache *CacheOptions
	// JSONRPC1 makes the client speak JSON-RPC 1.0, for a server that
	// speaks nothing else (Bitcoin Core and its forks, say): Call,
	// CallRaw and Notify send 1.0 requests, whose params must encode to
	// an array (conn.ErrParamsNotArray otherwise; nil is sent as []), and
	// 1.0 answers are matched by id; Batch fails with
	// conn.ErrBatchJSONRPC1, as 1.0 has no batches. Retries, the cache
	// and the counters work as they do in 2.0. It sets the sessions'
	// conn.Options.SendJSONRPC1.
	JSONRPC1 bool
}

// Retry bounds the retries of an idempotent call. Only these outcomes are
// retried: -32000 (overloaded) and -32011 (rate limited), both refusals
// before the request started, whose data.retryAfterMs is the least wait
// before the next attempt; -32012 (request timeout); and a transport
// failure that came before the request was written (a failed dial, a
// session found closed).
// A call that is not idempotent is never retried.
type Retry struct {
	// MaxAttempts bounds the attempts of one call, the first included
	// (default 3; 1: never retry).
	MaxAttempts int
	// Backoff paces the attempts (defaults 50ms, 2s): before attempt n+1
	// the call waits a random time of up to min(Max, Base·2^(n-1)) (full
	// jitter), and at least the server's retryAfterMs. A wait that would
	// outlast the call's deadline is not begun: the last error is
	// returned at once.
	Backoff
}

// Backoff is a capped exponential backoff with full jitter.
type Backoff struct {
	// Base is the bound of the first wait.
	Base time.Duration
	// Max caps the bound as it doubles.
	Max time.Duration
}

// wait returns the wait after the n-th failure in a row (n ≥ 1): a random
// duration in [0, min(Max, Base·2^(n-1))].
func (b Backoff) wait(n int) time.Duration {
	bound := b.Max
	if n-1 < 62 && b.Base <= b.Max>>(n-1) {
		bound = b.Base << (n - 1)
	}
	if bound <= 0 {
		return 0
	}
	return rand.N(bound + 1)
}

func (b Backoff) withDefaults(base, max time.Duration) Backoff {
	if b.Base <= 0 {
		b.Base = base
	}
	if b.Max <= 0 {
		b.Max = max
	}
	if b.Max < b.Base {
		b.Max = b.Base
	}
	return b
}

// CacheOptions configure the client's result cache: the results of the
// methods it names are kept for TTL, keyed by method and canonical params
// (white space, member order and escapes do not matter), and a call that
// finds one is answered from memory without reaching a server. Errors are
// never kept. Identical calls made while one is on its way to the server
// share its answer. The cache is package cache's, bounded by entries and
// by bytes (S3-FIFO eviction: an entry used since it came in outlives one
// that was not).
type CacheOptions struct {
	// Methods whose results are kept.
	Methods []string
	// TTL is how long a result is kept (default 1 minute).
	TTL time.Duration
	// MaxEntries bounds the results kept (default 1024).
	MaxEntries int
	// MaxBytes bounds the bytes of the results, their keys and a fixed
	// overhead each (cache.EntryOverhead) (default 8 MiB); a result larger
	// than that alone is not kept.
	MaxBytes int
}

// options are Options with the defaults applied.
type options struct {
	session    conn.Options
	sessions   int
	timeout    time.Duration
	idempotent map[string]bool
	retry      Retry
	redial     Backoff
	cache      *CacheOptions
}

func (o *Options) withDefaults() options {
	var c Options
	if o != nil {
		c = *o
	}
	r := options{sessions: c.Sessions, timeout: c.Timeout, retry: c.Retry, redial: c.Redial}
	if c.Session != nil {
		r.session = *c.Session
	}
	r.session.SendJSONRPC1 = r.session.SendJSONRPC1 || c.JSONRPC1
	if r.sessions <= 0 {
		r.sessions = DefaultSessions
	}
	r.idempotent = make(map[string]bool, len(c.Idempotent))
	for _, m := range c.Idempotent {
		r.idempotent[m] = true
	}
	if r.retry.MaxAttempts <= 0 {
		r.retry.MaxAttempts = DefaultMaxAttempts
	}
	r.retry.Backoff = r.retry.withDefaults(DefaultRetryBase, DefaultRetryMax)
	r.redial = r.redial.withDefaults(DefaultRedialBase, DefaultRedialMax)
	if c.Cache != nil {
		cc := *c.Cache
		cc.Methods = append([]string(nil), cc.Methods...)
		if cc.TTL <= 0 {
			cc.TTL = DefaultCacheTTL
		}
		if cc.MaxEntries <= 0 {
			cc.MaxEntries = DefaultCacheMaxEntries
		}
		if cc.MaxBytes <= 0 {
			cc.MaxBytes = DefaultCacheMaxBytes
		}
		r.cache = &cc
	}
	return r
}
