package main

// A worker drives one connection (an MCP session with -mcp). Its writer
// goroutine sends: in a closed loop whenever fewer than -depth messages
// are in flight, in an open loop at its share of -rate, many messages
// per write either way. Its reader goroutine matches each answer to the
// request it answers by id (ids are 1, 2, 3… per connection), records the
// latency, and counts what cannot be matched: an id answered before is a
// duplicate, one never sent unknown. What is still unanswered when the
// run has waited -timeout after its end is lost.

import (
	"context"
	"errors"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/conn"
)

// maxPerWrite bounds the messages of one write.
const maxPerWrite = 256

// pend is a request in flight.
type pend struct {
	start time.Duration // from the run's start: when it was sent, or meant to be (open loop)
	call  *call
	msg   uint64 // the first id of its message, for a batch's
}

type worker struct {
	i      int
	r      *runner
	stream conn.Stream
	sh     *shard
	rnd    *rand.Rand

	mu      sync.Mutex
	pending map[uint64]pend
	left    map[uint64]int // a batch's requests still unanswered, by its first id
	nextID  uint64         // the next id to send; ids below it were sent

	wmu      sync.Mutex // held for a stream.Write
	inflight atomic.Int64
	wake     chan struct{} // the reader made room (closed loop)
	ended    chan struct{} // the reader is done
	closing  atomic.Bool   // the run closes the stream: its end is no failure

	buf, scratch []byte
	// stopped is when sending stopped, last when the last answer came
	// (the reader's; read once it ended): the run's measured time ends
	// at the later of the two.
	stopped, last time.Duration
}

func newWorker(r *runner, i int, s conn.Stream) *worker {
	return &worker{
		i: i, r: r, stream: s, sh: r.stats.shard(i),
		rnd:     rand.New(rand.NewPCG(uint64(i)+1, uint64(time.Now().UnixNano()))),
		pending: make(map[uint64]pend),
		left:    make(map[uint64]int),
		nextID:  1,
		wake:    make(chan struct{}, 1),
		ended:   make(chan struct{}),
	}
}

// run sends until ctx is done or the budget is spent, waits up to the
// drain timeout for the answers in flight, then closes the stream.
func (w *worker) run(ctx context.Context) {
	go w.read()
	if w.r.rate != nil {
		w.openLoop(ctx)
	} else {
		w.closedLoop(ctx)
	}
	w.stopped = time.Since(w.r.start)
	w.drain()
}

// closedLoop keeps -depth messages in flight.
func (w *worker) closedLoop(ctx context.Context) {
	depth := int64(w.r.depth)
	for {
		n := depth - w.inflight.Load()
		if n <= 0 {
			select {
			case <-w.wake:
				continue
			case <-ctx.Done():
				return
			case <-w.ended:
				return
			}
		}
		if ctx.Err() != nil {
			return
		}
		now := time.Since(w.r.start)
		if !w.send(ctx, int(min(n, maxPerWrite)), func() time.Duration { return now }) {
			return
		}
	}
}

// openLoop sends at the pacer's times, from which latency is measured:
// a server that stalls is charged for every call it kept waiting. When
// the generator's own timer wakes it late, the calls due meanwhile are
// measured from its waking, not charged to the server.
func (w *worker) openLoop(ctx context.Context) {
	p := newPacer(*w.r.rate, w.i, w.r.conns)
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	var floor time.Duration
	for {
		now := time.Since(w.r.start)
		if wait := p.next - now; wait > 0 {
			timer.Reset(wait)
			select {
			case <-timer.C:
			case <-ctx.Done():
				return
			case <-w.ended:
				return
			}
			floor = time.Since(w.r.start)
			continue
		}
		if ctx.Err() != nil {
			return
		}
		due := 0
		for t := p.next; t <= now && due < maxPerWrite; t += time.Duration(p.interval(t)) {
			due++
		}
		if !w.send(ctx, due, func() time.Duration { return max(p.take(), floor) }) {
			return
		}
	}
}

// send writes n messages, each sent at the time startOf gives, and
// reports whether to go on: false when the budget is spent or the
// stream failed.
func (w *worker) send(ctx context.Context, n int, startOf func() time.Duration) bool {
	r := w.r
	w.buf = w.buf[:0]
	var reqs, notes int64
	w.mu.Lock()
	for range n {
		k := r.reserve(r.calls.batch)
		if k == 0 {
			break
		}
		start := startOf()
		first, msgReqs := w.nextID, 0
		m := len(w.buf)
		if r.calls.batch > 1 {
			w.buf = append(w.buf, '[')
		}
		for j := range k {
			if j > 0 {
				w.buf = append(w.buf, ',')
			}
			c := r.calls.pick(w.rnd)
			seq := r.seq.Add(1)
			if c.notify || (r.calls.notify > 0 && w.rnd.Float64() < r.calls.notify) {
				w.buf = appendCall(w.buf, c, 0, seq, w.rnd)
				notes++
				continue
			}
			id := w.nextID
			w.nextID++
			w.pending[id] = pend{start: start, call: c, msg: first}
			w.buf = appendCall(w.buf, c, id, seq, w.rnd)
			msgReqs++
		}
		if r.calls.batch > 1 {
			w.buf = append(w.buf, ']')
			if msgReqs > 1 {
				w.left[first] = msgReqs
			}
		}
		w.buf = w.stream.FrameInPlace(w.buf, m)
		if msgReqs > 0 {
			w.inflight.Add(1)
			reqs += int64(msgReqs)
		}
	}
	w.mu.Unlock()
	if len(w.buf) == 0 {
		return false
	}
	r.stats.requests.Add(reqs)
	r.stats.notifications.Add(notes)
	r.stats.bytesOut.Add(int64(len(w.buf)))
	w.wmu.Lock()
	err := w.stream.Write(w.buf)
	w.wmu.Unlock()
	if err != nil {
		w.broken(err)
		return false
	}
	return ctx.Err() == nil
}

// read matches answers to requests until the stream ends.
func (w *worker) read() {
	defer close(w.ended)
	scan := codec.NewScanner(nil)
	canon := codec.NewCanonicalizer(nil)
	for {
		msg, err := w.stream.Next()
		if err != nil {
			var fe *codec.FrameError
			if errors.As(err, &fe) {
				w.sh.stray(0, 1) // a frame nobody could read: no request it answers
				continue
			}
			if !w.closing.Load() {
				w.broken(err)
			}
			return
		}
		now := time.Since(w.r.start)
		w.last = now
		w.sh.received(len(msg))
		msgs, _, err := scan.Scan(msg)
		if err != nil {
			w.sh.stray(0, 1)
			continue
		}
		for i := range msgs {
			m := &msgs[i]
			switch m.Kind {
			case codec.KindResult, codec.KindError, codec.KindBadResponse:
				w.answer(m, now, canon)
			case codec.KindRequest:
				w.reply(m)
			}
		}
	}
}

// answer matches one answer to its request.
func (w *worker) answer(m *codec.Message, now time.Duration, canon *codec.Canonicalizer) {
	id, err := strconv.ParseUint(string(m.ID), 10, 64)
	w.mu.Lock()
	p, ok := w.pending[id]
	if err != nil || !ok {
		sent := err == nil && id > 0 && id < w.nextID
		w.mu.Unlock()
		if sent {
			w.sh.stray(1, 0)
		} else {
			w.sh.stray(0, 1)
		}
		return
	}
	delete(w.pending, id)
	done := true
	if n, batch := w.left[p.msg]; batch {
		if done = n == 1; done {
			delete(w.left, p.msg)
		} else {
			w.left[p.msg] = n - 1
		}
	}
	w.mu.Unlock()
	if done && w.inflight.Add(-1) == int64(w.r.depth)-1 {
		select {
		case w.wake <- struct{}{}:
		default:
		}
	}
	switch m.Kind {
	case codec.KindResult:
		mismatch := false
		if p.call.expect != nil {
			got, err := canon.Append(w.scratch[:0], m.Result)
			mismatch = err != nil || string(got) != string(p.call.expect)
			w.scratch = got
		}
		w.sh.answered(now-p.start, true, 0, nil, mismatch)
	case codec.KindError:
		w.sh.answered(now-p.start, false, errorCode(m.ErrorObj), m.ErrorObj, false)
	default: // both result and error, say: an error of no code
		w.sh.answered(now-p.start, false, 0, []byte(m.Err.Error()), false)
	}
}

// errorCode reads an error object's code (0 when it has none).
func errorCode(obj []byte) int64 {
	var ms codec.Members
	ms.Reset(obj)
	for ms.Next() {
		if string(ms.Key()) == `"code"` {
			n, _ := strconv.ParseInt(string(ms.Value()), 10, 64)
			return n
		}
	}
	return 0
}

// reply answers a request of the server's: ping as MCP asks, anything
// else -32601, so that a server waiting on it goes on.
func (w *worker) reply(m *codec.Message) {
	var out []byte
	if string(m.Method) == "ping" {
		out = codec.AppendResult(nil, m.ID, []byte("{}"))
	} else {
		out = codec.AppendError(nil, m.ID, codec.NewError(codec.CodeMethodNotFound, "loadgen serves no methods"))
	}
	out = w.stream.FrameInPlace(out, 0)
	w.wmu.Lock()
	w.stream.Write(out)
	w.wmu.Unlock()
}

// broken fails every request in flight: the transport ended under them.
func (w *worker) broken(err error) {
	w.mu.Lock()
	n := len(w.pending)
	clear(w.pending)
	clear(w.left)
	w.mu.Unlock()
	if n > 0 {
		w.sh.failed(int64(n))
	}
	w.r.transportError(err)
}

// drain waits up to the run's timeout for the answers in flight, then
// closes the stream; what is still unanswered is lost.
func (w *worker) drain() {
	deadline := time.Now().Add(w.r.timeout)
	for time.Now().Before(deadline) {
		w.mu.Lock()
		n := len(w.pending)
		w.mu.Unlock()
		if n == 0 {
			break
		}
		select {
		case <-w.ended:
		case <-time.After(time.Millisecond):
			continue
		}
		break
	}
	w.closing.Store(true)
	w.stream.Close()
	<-w.ended
	w.mu.Lock()
	lost := len(w.pending)
	clear(w.pending)
	w.mu.Unlock()
	w.r.stats.lost.Add(int64(lost))
}
