package mcp

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/mcpwire/mcpwire/conn"
)

// KeepAlive configures the pings a side sends its peer to learn that it
// is still there (the specification's ping utility: "implementations
// SHOULD periodically issue pings to detect connection health"). The zero
// value sends none.
//
// One ping is in flight at a time: it is sent every Interval, and a ping
// still unanswered after Timeout is missed. A ping counts as answered
// only when the peer returns its empty result: every peer must answer
// ping (2024-11-05 and later), so an error answer — or the HTTP client's
// own report that the server could not be reached — is missed too. After
// MaxMissed missed pings in a row the session is closed, the reason is
// logged (ServerOptions.Conn.Logger, ClientOptions.Conn.Logger, at
// Warn), and Wait returns ErrPingTimeout.
//
// Over Streamable HTTP the server sends its ping on the session's GET
// stream while one is open, else on a POST's event stream still open;
// with no open stream there is no way to reach the client and no ping is
// sent (nor missed): an idle session is ended by HTTPOptions.SessionTimeout
// instead. Pings are not activity: a POST that holds only pings (or only
// responses) does not keep a session from expiring, so a client's
// keep-alive cannot hold an abandoned session open. The specification is
// silent on both; this is the conservative reading.
type KeepAlive struct {
	// Interval is the time between pings (zero or negative: none).
	Interval time.Duration
	// Timeout is how long a ping waits for its answer (default Interval).
	Timeout time.Duration
	// MaxMissed is how many pings in a row may go unanswered before the
	// session is closed (default DefaultMaxMissedPings: the first missed
	// ping closes it).
	MaxMissed int
}

// DefaultMaxMissedPings is KeepAlive.MaxMissed's default.
const DefaultMaxMissedPings = 1

// ErrPingTimeout is what Wait returns for a session closed because its
// peer stopped answering keep-alive pings (KeepAlive).
var ErrPingTimeout = errors.New("mcp: the peer did not answer keep-alive pings")

func (k KeepAlive) withDefaults() KeepAlive {
	if k.Timeout <= 0 {
		k.Timeout = k.Interval
	}
	if k.MaxMissed <= 0 {
		k.MaxMissed = DefaultMaxMissedPings
	}
	return k
}

// pinger is what a session's keep-alive loop drives.
type pinger interface {
	// keepAlivePing sends one ping within ctx and waits for its answer;
	// sent is false when there was no way to reach the peer (nothing was
	// sent).
	keepAlivePing(ctx context.Context) (sent bool, err error)
	// keepAliveFailed closes the session: its peer missed too many pings.
	keepAliveFailed(missed int, last error)
}

// keepAlive pings p every k.Interval until done is closed; after
// k.MaxMissed missed pings in a row it calls p.keepAliveFailed and
// returns.
func keepAlive(k KeepAlive, done <-chan struct{}, p pinger) {
	k = k.withDefaults()
	t := time.NewTicker(k.Interval)
	defer t.Stop()
	missed := 0
	for {
		select {
		case <-done:
			return
		case <-t.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), k.Timeout)
		sent, err := p.keepAlivePing(ctx)
		cancel()
		select {
		case <-done: // the session ended meanwhile: not the peer's silence
			return
		default:
			if errors.Is(err, conn.ErrClosed) { // it is ending
				return
			}
		}
		switch {
		case !sent:
		case err == nil:
			missed = 0
		default:
			if missed++; missed >= k.MaxMissed {
				p.keepAliveFailed(missed, err)
				return
			}
		}
	}
}

// logKeepAliveFailure logs why a session is being closed by its
// keep-alive.
func logKeepAliveFailure(log *slog.Logger, k KeepAlive, missed int, last error, attrs ...any) {
	k = k.withDefaults()
	log.Warn("mcp: keep-alive: the peer did not answer pings; closing the session",
		append([]any{"missed", missed, "interval", k.Interval, "timeout", k.Timeout, "err", last}, attrs...)...)
}
