package middleware

import (
	"context"
	"log/slog"
	"net"
	"strconv"
	"time"

	"golang.org/x/time/rate"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/router"
)

// DefaultMaxPeers bounds the peers RateLimit tracks at once, unless
// RateOptions.MaxPeers says otherwise.
const DefaultMaxPeers = 1 << 16

// RateOptions configure RateLimit. A nil *RateOptions gives the defaults;
// RateLimit copies the value.
type RateOptions struct {
	// Key returns the peer a call counts against: any comparable value
	// (default PeerKey; PrincipalKey counts per caller). Calls with the
	// same key share one limiter. Only a string key's budget is shared
	// through Store: other values (a stream session's *conn.Conn) are
	// limited by this instance alone.
	Key func(ctx context.Context) any
	// Store, if not nil, keeps the budgets of string keys (an HTTP peer's
	// IP address, a principal's identity) for every instance sharing it,
	// so that a peer gets one budget whichever instance serves it: each
	// such call costs one Allow. While the store fails, each instance
	// limits alone with its own limiters, as without a store (logged
	// once, on Logger), and asks the store again after RateStoreRetry.
	// Not used at a rate of 0 or less, which never refills: each instance
	// then limits alone.
	Store RateStore
	// Logger receives the warning that Store failed and the note that it
	// answers again (default slog.Default()).
	Logger *slog.Logger
	// IdleTimeout drops the limiter of a peer that made no call for that
	// long (default: the time its burst takes to refill, at least a
	// minute; never less than that refill time, since a limiter dropped
	// earlier would forget calls it still counts). A session's limiter
	// goes sooner, the next time its part of the table is scanned for
	// idle or ended peers after the session ended (each part at most every
	// 10 seconds, when a call reaches it).
	IdleTimeout time.Duration
	// MaxPeers bounds the peers tracked at once (default DefaultMaxPeers):
	// past it the one least recently seen is dropped (it starts afresh
	// with a full burst when it comes back).
	MaxPeers int
}

// RateLimit returns middleware that allows each peer r calls per second
// with bursts of burst (a token bucket: golang.org/x/time/rate; burst is at
// least 1). A call past the limit is answered at once — never queued —
// with -32011 "Too many requests", whose data.retryAfterMs says when the
// peer's next call would be allowed (the limiter's reservation delay,
// rounded up to a millisecond); a notification past it is dropped. The
// peer is PeerKey's unless RateOptions.Key says otherwise. At rate.Inf the
// middleware returns the handler it wraps as it is.
//
// With RateOptions.Store, the budgets of string keys are the store's,
// shared by every instance using it (the -32011's retryAfterMs is then
// the store's), at the cost of one call to the store per call; the
// middleware then waits for the store, within the store's own bound.
//
// The limiters of all the methods it wraps are shared: a peer's calls to
// any of them count against one budget. The idle peers' limiters are
// dropped (RateOptions.IdleTimeout), and at most MaxPeers are kept, so
// memory stays bounded whatever the number of peers.
func RateLimit(r rate.Limit, burst int, opts *RateOptions) router.Middleware {
	var o RateOptions
	if opts != nil {
		o = *opts
	}
	burst = max(burst, 1)
	refill := time.Duration(1<<63 - 1) // r <= 0 never refills: keep every peer's
	if secs := float64(burst) / float64(r); r > 0 && secs < refill.Seconds() {
		refill = time.Duration(secs * float64(time.Second))
	}
	if o.IdleTimeout <= 0 {
		o.IdleTimeout = max(refill, time.Minute)
	}
	o.IdleTimeout = max(o.IdleTimeout, refill)
	if o.MaxPeers <= 0 {
		o.MaxPeers = DefaultMaxPeers
	}
	t := newPeerTable(r, burst, o.IdleTimeout, o.MaxPeers)
	var sh *shared
	if o.Store != nil && r > 0 {
		if o.Logger == nil {
			o.Logger = slog.Default()
		}
		sh = &shared{store: o.Store, limit: r, burst: burst, log: o.Logger}
	}
	return func(next router.Handler) router.Handler {
		if r == rate.Inf {
			return next
		}
		return &rateLimit{key: o.Key, peers: t, shared: sh, next: next}
	}
}

type rateLimit struct {
	key    func(context.Context) any // nil: peerOf
	peers  *peerTable
	shared *shared // nil: no RateOptions.Store
	next   router.Handler
}

func (l *rateLimit) Handle(ctx context.Context, req *router.Request) (any, error) {
	now := time.Now()
	var p peer
	if l.key != nil {
		p.other = l.key(ctx)
	} else {
		p = peerOf(ctx)
	}
	if l.shared != nil {
		if key, ok := p.sharedKey(); ok {
			if ok, wait, used := l.shared.allow(ctx, key, now); used {
				if ok {
					return l.next.Handle(ctx, req)
				}
				return nil, tooManyAfter(wait)
			}
		}
	}
	lim := l.peers.limiter(p, now)
	if lim.AllowN(now, 1) {
		return l.next.Handle(ctx, req)
	}
	return nil, tooManyRequests(lim, now)
}

// tooManyRequests is the -32011 for a call lim refused at now: its
// retryAfterMs is the delay a reservation made now would have to wait
// (the reservation is cancelled: a refused call costs the peer nothing).
func tooManyRequests(lim *rate.Limiter, now time.Time) *codec.Error {
	res := lim.ReserveN(now, 1)
	wait := res.DelayFrom(now)
	res.CancelAt(now)
	if !res.OK() || wait == rate.InfDuration {
		wait = time.Hour // a limit of 0: never; say an hour rather than forever
	}
	return tooManyAfter(wait)
}

// tooManyAfter is the -32011 whose data.retryAfterMs is wait, rounded up
// to a millisecond (at least one).
func tooManyAfter(wait time.Duration) *codec.Error {
	ms := max(1, (wait+time.Millisecond-1)/time.Millisecond)
	data := strconv.AppendInt([]byte(`{"retryAfterMs":`), int64(ms), 10)
	return errTooMany.WithData(codec.Raw(append(data, '}')))
}

var errTooMany = codec.NewError(codec.CodeTooManyRequests, "Too many requests: rate limit exceeded")

// PeerKey is RateLimit's default peer: for a session of HTTP POST bodies
// (conn.Peer.Transport "http") the remote IP address without the port,
// since one client's requests come over many connections (the body's own,
// conn.BodyRemoteAddr, on a connection serving many peers' bodies, as
// Streamable HTTP's stateless requests are); for any other
// session (stdio, TCP, Unix, WebSocket) the session itself (its *conn.Conn).
// Outside of a session (a handler called directly) it is nil: all such
// calls share one limiter.
func PeerKey(ctx context.Context) any {
	switch p := peerOf(ctx); {
	case p.c != nil:
		return p.c
	case p.ip != "":
		return p.ip
	}
	return nil
}

// peerOf is PeerKey without an interface to allocate.
func peerOf(ctx context.Context) peer {
	c := conn.FromContext(ctx)
	if c == nil {
		return peer{}
	}
	if p := c.Peer(); p.Transport == "http" {
		if p.Addr == "" { // one connection for many peers' bodies
			p.Addr = conn.BodyRemoteAddr(ctx)
		}
		if host, _, err := net.SplitHostPort(p.Addr); err == nil {
			return peer{ip: host}
		}
		if p.Addr != "" {
			return peer{ip: p.Addr}
		}
	}
	return peer{c: c}
}
