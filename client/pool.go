package client

import (
	"context"
	"errors"
	"math"
	"sync"
	"sync/atomic"
	"time"
)

// The session pool: Options.Sessions slots, each holding at most one open
// session, opened on demand and opened again (redialled) once it has
// ended. A call picks the open session with the fewest calls pending; an
// empty slot is filled only when every open session has calls pending.
//
// Invariants (under slot.mu): at most one dial per slot is under way,
// announced by dialing, which is closed once it has ended; failures,
// retryAt and lastErr describe the dials that failed in a row; failed
// counts every failed dial. cur and
// retryAt are also read without the lock, by pick and Stats, as hints.

// slot is one place for a session in the pool.
type slot struct {
	cl      *Client
	pending atomic.Int64            // calls and batch requests using the slot now
	cur     atomic.Pointer[session] // the last session opened, open or ended
	retryAt atomic.Int64            // UnixNano before which no dial starts; 0: any time
	mu      sync.Mutex              // guards what follows, and cur's changes
	dialing chan struct{}           // non-nil while a dial is under way
	fails   int                     // failed dials in a row
	failed  uint64                  // failed dials ever: tells a waiter the dial it shared failed
	lastErr error                   // the last failed dial's error
}

// pick returns the slot a call should use: the open session with the
// fewest calls pending, unless it has some and a slot may be filled
// without waiting; with no open session, the slot that may dial soonest.
func (c *Client) pick() *slot {
	var open, empty *slot
	openN := int64(math.MaxInt64)
	emptyAt := int64(math.MaxInt64)
	for _, sl := range c.slots {
		if s := sl.cur.Load(); s != nil && s.alive() {
			if n := sl.pending.Load(); n < openN {
				open, openN = sl, n
			}
		} else if at := sl.retryAt.Load(); at < emptyAt {
			empty, emptyAt = sl, at
		}
	}
	switch {
	case open == nil:
		return empty
	case openN == 0 || empty == nil:
		return open
	case emptyAt == 0 || emptyAt <= time.Now().UnixNano():
		return empty
	}
	return open
}

// session returns the slot's open session, dialling one if it has none:
// after the slot's redial backoff, if ctx's deadline allows that wait,
// and sharing the dial already under way, if any (its failure is then
// this call's too). Every failure is a *TransportError that was not sent,
// except the end of ctx (its error) and the client's close (ErrClosed).
func (sl *slot) session(ctx context.Context) (*session, error) {
	if s := sl.cur.Load(); s != nil && s.alive() {
		return s, nil
	}
	sl.mu.Lock()
	waited, fails := false, sl.failed
	for {
		if s := sl.cur.Load(); s != nil && s.alive() {
			sl.mu.Unlock()
			return s, nil
		}
		if sl.cl.closed.Load() {
			sl.mu.Unlock()
			return nil, ErrClosed
		}
		if waited && sl.failed != fails {
			err := sl.failure() // the dial this call waited for failed
			sl.mu.Unlock()
			return nil, err
		}
		ch := sl.dialing
		if ch == nil {
			break // none under way, or the one waited for was given up by its caller
		}
		waited, fails = true, sl.failed
		sl.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		sl.mu.Lock()
	}
	wait := time.Until(time.Unix(0, sl.retryAt.Load()))
	if d, ok := ctx.Deadline(); ok && wait > 0 && time.Until(d) < wait {
		err := sl.failure() // backing off past the call's deadline
		sl.mu.Unlock()
		return nil, err
	}
	ch := make(chan struct{})
	sl.dialing = ch
	sl.mu.Unlock()
	s, err := sl.dial(ctx, wait)
	sl.mu.Lock()
	sl.dialing = nil
	closed := sl.cl.closed.Load()
	switch {
	case err == nil && !closed:
		sl.cur.Store(s)
		sl.fails, sl.lastErr = 0, nil
		sl.retryAt.Store(0)
	case err == nil: // closed meanwhile: Close waits on ch
		err = ErrClosed
	case ctx.Err() != nil: // the caller gave up: no fault of the server's
		err = ctx.Err()
	default:
		sl.fails++
		sl.failed++
		sl.lastErr = err
		sl.retryAt.Store(time.Now().Add(sl.cl.opts.redial.wait(sl.fails)).UnixNano())
		err = sl.failure()
	}
	sl.mu.Unlock()
	if err != nil {
		if s != nil {
			s.c.Close()
		}
		s = nil
	}
	close(ch)
	return s, err
}

// errNoStream is the failure of a DialFunc that returned neither a stream
// nor an error.
var errNoStream = errors.New("client: the dial returned no stream")

// failure is the error of a call that found no session: the last dial's.
// Called with mu held.
func (sl *slot) failure() error {
	return &TransportError{Sent: false, Err: sl.lastErr}
}

// dial waits for the backoff, then dials a session.
func (sl *slot) dial(ctx context.Context, wait time.Duration) (*session, error) {
	if wait > 0 {
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		}
	}
	c := sl.cl
	stream, err := c.dial(ctx)
	if err == nil && stream == nil {
		err = errNoStream
	}
	if err != nil {
		c.st.dialErrors.Add(1)
		return nil, err
	}
	c.st.dials.Add(1)
	return openSession(stream, &c.opts.session, &c.st), nil
}

// close ends the slot's session, after waiting for a dial under way (the
// client is closed: the dial closes what it opened).
func (sl *slot) close() {
	sl.mu.Lock()
	ch := sl.dialing
	s := sl.cur.Swap(nil)
	sl.mu.Unlock()
	if ch != nil {
		<-ch
	}
	if s != nil {
		s.c.Close()
	}
}
