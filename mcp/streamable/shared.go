package streamable

import (
	"context"
	"crypto/sha256"
	"encoding/base32"
	"encoding/hex"
	"time"

	"github.com/mcpwire/mcpwire/codec"
)

// SharedEventStore is an EventStore shared by the instances of a server
// (Redis, say) that also numbers events itself. When the handler's
// EventStore implements it, a session's standalone stream is one stream
// for every instance: its id is derived from the session's id, whatever
// any instance's copy of the session sends outside of a request is
// published to it (Publish), and the instance holding the client's GET
// delivers what was published, whoever published it, in order (Watch,
// then After): a client resuming with Last-Event-ID on any instance gets
// exactly the events after that one, then the live stream. The streams of
// POSTs stay each instance's own, numbered by it (Append).
//
// Implementations must be safe for concurrent use.
type SharedEventStore interface {
	EventStore
	// Publish appends data as the next event of a session's stream,
	// numbered by the store (atomically: concurrent publishers get
	// distinct, increasing numbers), and returns its number. With a
	// dedupKey, an event whose dedupKey was published to the same stream
	// within the last second is dropped: seq is then 0 and err nil. data
	// is valid only during the call.
	Publish(ctx context.Context, session, stream string, data []byte, dedupKey string) (seq uint64, err error)
	// Watch returns the number of the stream's last event (0: none yet)
	// and a channel that receives a token, as soon as it can, after
	// events are appended to the stream: a hint to call After, which may
	// be lost (the caller also polls). stop ends the watch; it must be
	// called.
	Watch(ctx context.Context, session, stream string) (last uint64, wake <-chan struct{}, stop func(), err error)
}

// SharedSessionStore is a SessionStore shared by the instances of a
// server that also tells each of them when a session is deleted, so that
// they end their copies of it promptly rather than at their next Touch.
//
// Implementations must be safe for concurrent use.
type SharedSessionStore interface {
	SessionStore
	// WatchDeleted calls f with the id of every session that any
	// instance Deletes from now on, until stop is called. f is called on
	// the store's goroutine and must not block.
	WatchDeleted(ctx context.Context, f func(id string)) (stop func(), err error)
}

// sharedPoll is how often a GET on a shared standalone stream looks for
// events it was not told of: a wake-up lost while the store's
// subscription was down (Redis restarting) delays events by at most that.
const sharedPoll = 2 * time.Second

// standaloneID returns the id of session's standalone stream on a shared
// event store: the same on every instance.
func standaloneID(session string) string {
	d := sha256.Sum256([]byte("standalone\x00" + session))
	return base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(d[:5])
}

// dedupMethods are the server-wide notifications that several instances'
// copies of one session may each send for one event.
var dedupMethods = map[string]bool{
	"notifications/tools/list_changed":     true,
	"notifications/resources/list_changed": true,
	"notifications/prompts/list_changed":   true,
	"notifications/resources/updated":      true,
}

// dedupKey returns the key a shared stream drops repeats of msg by: a
// hash of its bytes if it is a server-wide notification, else "".
func (b *bodyScanner) dedupKey(msg []byte) string {
	sc, _ := b.scanners.Get().(*codec.Scanner)
	if sc == nil {
		sc = codec.NewScanner(&b.limits)
	}
	defer b.scanners.Put(sc)
	msgs, batch, err := sc.Scan(msg)
	if err != nil || batch || len(msgs) != 1 || msgs[0].Kind != codec.KindNotification {
		return ""
	}
	if !dedupMethods[string(msgs[0].AppendMethod(nil))] {
		return ""
	}
	d := sha256.Sum256(msg)
	return hex.EncodeToString(d[:16])
}

// publish sends msg, which the session sends outside of any request, to
// its shared standalone stream. When the store fails, msg still reaches
// a GET attached here, as an event without an id (it cannot be resumed),
// and the failure is logged.
func (st *sseStream) publish(msg []byte) {
	s := st.sess
	seq, err := st.shared.Publish(s.ctx, s.id, st.id, msg, s.h.scan.dedupKey(msg))
	if err != nil {
		delivered := st.offer(msg)
		s.h.log.Warn("mcp: event store publish failed; the event is not resumable",
			"session", s.id, "deliveredHere", delivered, "err", err)
		return
	}
	if seq == 0 { // a repeat
		return
	}
	st.mu.Lock()
	if w := st.writer; w != nil {
		signal(w.fetch)
	}
	st.mu.Unlock()
}

// attachShared attaches a GET's writer to a shared standalone stream,
// taking over from any other unless exclusive (a fresh GET, which starts
// at the stream's last event), and returns it with the events after
// after (a resumption), the priming event's number (its id, with no
// data: the last event's) and whether to send it, and the watch's
// channel and stop function.
func (st *sseStream) attachShared(ctx context.Context, after uint64, exclusive bool) (*sharedAttach, error) {
	st.mu.Lock()
	if st.writer != nil {
		if exclusive {
			st.mu.Unlock()
			return nil, errStreamBusy
		}
		st.detachLocked(false)
	}
	if st.done {
		st.mu.Unlock()
		return nil, ErrSessionNotFound
	}
	w := &sseWriter{wake: make(chan struct{}, 1), detach: make(chan struct{}), fetch: make(chan struct{}, 1)}
	st.writer, st.queue = w, nil
	st.mu.Unlock()
	a := &sharedAttach{w: w}
	last, wake, stop, err := st.shared.Watch(ctx, st.sess.id, st.id)
	if err != nil {
		st.release(w)
		return nil, err
	}
	a.wake, a.stop, a.last = wake, stop, after
	if exclusive {
		a.last = last
	} else if after < last {
		if a.replay, err = st.shared.After(ctx, st.sess.id, st.id, after); err != nil {
			stop()
			st.release(w)
			return nil, err
		}
	}
	a.priming = len(a.replay) == 0 && st.sess.priming() && (exclusive || after == 0)
	return a, nil
}

// sharedAttach is a GET attached to a shared standalone stream.
type sharedAttach struct {
	w       *sseWriter
	replay  []StoredEvent
	last    uint64 // the number of the last event the response holds
	priming bool   // open with a priming event whose id is last's
	wake    <-chan struct{}
	stop    func()
}

// pumpShared writes a shared standalone stream to the response: the
// replay, then what the store holds past the last event written whenever
// it may hold more (a wake-up of the store's, a publish of this
// instance's, or every sharedPoll), and what is queued here (events that
// could not be published, keep-alive pings) as it comes; until the writer
// is let go (the session ended, or another GET took over), the client
// goes away, or ctx ends.
func (o *sseResponse) pumpShared(ctx context.Context, st *sseStream, a *sharedAttach) {
	defer st.release(a.w)
	defer a.stop()
	if a.priming {
		o.priming(st.id, a.last)
	}
	for _, e := range a.replay {
		if e.Seq > a.last {
			o.buf = appendEvent(o.buf, st.id, e.Seq, e.Data)
			a.last = e.Seq
		}
	}
	if o.flush() != nil {
		return
	}
	poll := time.NewTicker(sharedPoll)
	defer poll.Stop()
	h := st.sess.h
	for {
		select {
		case <-a.w.detach:
			return
		case <-ctx.Done():
			return
		case <-a.w.wake:
			q, _, attached := st.take(a.w)
			if !attached {
				return
			}
			for _, e := range q {
				o.buf = appendSSEBody(o.buf, "message", e.data)
			}
		case <-a.wake:
		case <-a.w.fetch:
		case <-poll.C:
		}
		if len(o.buf) == 0 { // the store may hold more
			events, err := h.events.After(ctx, st.sess.id, st.id, a.last)
			if err != nil {
				if ctx.Err() == nil {
					h.log.Warn("mcp: event store read failed; retrying", "session", st.sess.id, "err", err)
				}
				continue
			}
			for _, e := range events {
				if e.Seq > a.last {
					o.buf = appendEvent(o.buf, st.id, e.Seq, e.Data)
					a.last = e.Seq
				}
			}
		}
		if o.flush() != nil {
			return
		}
	}
}
