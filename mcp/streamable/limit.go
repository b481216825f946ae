package streamable

import (
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"strconv"
	"time"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/internal/httpjson"
	"github.com/mcpwire/mcpwire/internal/principal"
	"github.com/mcpwire/mcpwire/internal/session"
	"github.com/mcpwire/mcpwire/mcp"
)

// DefaultMaxSessions and DefaultMaxSessionsPerPrincipal bound the sessions
// a server holds over HTTP (Options.MaxSessions,
// MaxSessionsPerPrincipal). The sessions of every HTTP handler serving one
// Server — Streamable HTTP and HTTP+SSE alike — are counted together, each
// handler refusing a new one past its own options' maxima: a server whose
// handlers share one Options holds at most MaxSessions in all.
//
// A session is counted from the moment its initialize (or, for HTTP+SSE,
// its GET) is taken until it ends: deleted, expired, closed, or its stream
// gone. A session another instance started and this one re-creates from
// the SessionStore is counted as a new one here.
//
// A refused session is answered HTTP 503 with a Retry-After header and a
// JSON-RPC error, id null: -32000 (codec.CodeOverloaded: refused before it
// started, a retry is safe) whose data names the limit reached, its value
// and the retry hint:
//
//	{"limit":"maxSessions","max":10000,"retryAfterMs":1000}
//	{"limit":"maxSessionsPerPrincipal","max":1000,"retryAfterMs":1000}
//
// Sessions already open are never affected. These are the defaults of
// Options.MaxSessions and MaxSessionsPerPrincipal.
const (
	DefaultMaxSessions             = 10000
	DefaultMaxSessionsPerPrincipal = 1000
)

// sessionRetryAfter is the retry hint of a session refused past a bound
// (Retry-After, and data.retryAfterMs of its error): sessions end at the
// clients' pace or their idle timeout's, not a queue's.
const sessionRetryAfter = time.Second

// Names of the limits, in a refusal's data.limit.
const (
	limitMaxSessions             = "maxSessions"
	limitMaxSessionsPerPrincipal = "maxSessionsPerPrincipal"
)

// registryMax is an Options bound as a session.Registry's: negative (no
// bound) is 0 there.
func registryMax(n int) int { return max(n, 0) }

// sessionRefused is the error of a new session refused past a bound: e
// is the answer.
type sessionRefused struct{ e *codec.Error }

func (r *sessionRefused) Error() string { return r.e.Message }

// tooManySessions is the -32000 refusing a session past the limit le
// reports: its data names the limit, its value and the retry hint.
func tooManySessions(le *session.LimitError) *sessionRefused {
	limit, msg := limitMaxSessions, "Too many sessions: the server holds its limit of "+strconv.Itoa(le.Max)+" ("+limitMaxSessions+"); retry later"
	if le.PerGroup {
		limit, msg = limitMaxSessionsPerPrincipal, "Too many sessions: this client holds its limit of "+strconv.Itoa(le.Max)+" ("+limitMaxSessionsPerPrincipal+"); end one or retry later"
	}
	data := fmt.Appendf(nil, `{"limit":%q,"max":%d,"retryAfterMs":%d}`, limit, le.Max, sessionRetryAfter.Milliseconds())
	return &sessionRefused{codec.NewError(codec.CodeOverloaded, msg).WithData(codec.Raw(data))}
}

// refuseSession answers a request whose new session a bound refused: 503,
// Retry-After, and the error.
func refuseSession(w http.ResponseWriter, e *codec.Error) {
	w.Header().Set("Retry-After", strconv.Itoa(int(sessionRetryAfter/time.Second)))
	w.Header()["Content-Type"] = httpjson.ContentType
	w.WriteHeader(http.StatusServiceUnavailable)
	w.Write(codec.AppendError(nil, nil, e))
}

// errStoreUnavailable refuses a new session whose SessionStore failed
// (503, with Retry-After: refuseSession): another try may find it back.
var errStoreUnavailable = &codec.Error{Code: codec.CodeOverloaded, Message: "session store unavailable; retry"}

// refuseShutdown answers a request for a new session once the handler is
// shutting down or closed: 503, -32000.
func refuseShutdown(w http.ResponseWriter) {
	httpjson.Error(w, http.StatusServiceUnavailable, codec.CodeOverloaded, "Server shutting down")
}

// principalKey is the key of an authenticated principal in a session.Quota:
// never equal to a peer's address.
type principalKey struct{ name string }

// sessionOwner returns the key r's new session is counted under for
// MaxSessionsPerPrincipal: the authenticated principal its context carries
// (middleware.HTTPAuth puts it there), else the peer's IP address — a
// routable IPv6 address by its /64 prefix, which one site commonly holds
// whole, as one IPv4 address stands for the hosts behind a NAT.
func sessionOwner(r *http.Request) any {
	if id := principal.ID(r.Context()); id != "" {
		return principalKey{id}
	}
	ap, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	ip := ap.Addr().Unmap()
	if ip.Is6() && !ip.IsLinkLocalUnicast() && !ip.IsLoopback() { // a link's /64 is every host on it
		if pfx, err := ip.Prefix(64); err == nil {
			return pfx
		}
	}
	return ip
}

// liveSession is what a handler's session registry holds.
type liveSession interface {
	comparable
	session.Session
}

// boundSessions sets reg's limits from o's, counted in srv's quota: the
// sessions of every handler serving srv are counted together.
func boundSessions[S liveSession](reg *session.Registry[string, S], srv *mcp.Server, o *Options) {
	reg.Max = registryMax(o.MaxSessions)
	reg.MaxPerGroup = registryMax(o.MaxSessionsPerPrincipal)
	reg.Quota = srv.SessionQuota()
}

// reserve counts r's new session in reg, or says why not: a
// *sessionRefused past a bound, session.ErrClosed once the handler shuts
// down or is closed.
func reserve[S liveSession](reg *session.Registry[string, S], r *http.Request) (*session.Slot, error) {
	slot, err := reg.Reserve(sessionOwner(r))
	if le, ok := errors.AsType[*session.LimitError](err); ok {
		return nil, tooManySessions(le)
	}
	return slot, err
}
