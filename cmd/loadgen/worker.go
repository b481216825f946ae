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
const maxPerWrite = 1024

// pend is a request in flight.
type pend struct {
	id    uint64
	start time.Duration // from the run's start: when it was sent, or meant to be (open loop)
	call  *call
	msg   uint64 // the first id of its message, for a batch's
}

type worker struct {
	i      int
	r      *runner
	stream conn.Stream
	tg     *targetStats // its target's counts
	sh     *shard
	rnd    *rand.Rand

	mu      sync.Mutex
	pending *pendingSet
	left    map[uint64]int // a batch's requests still unanswered, by its first id
	nextID  uint64         // the next id to send; ids below it were sent
	idText  decimal        // nextID in decimal

	wmu      sync.Mutex // held for a stream.Write
	inflight atomic.Int64
	wake     chan struct{} // the reader made room for a refill, or answered all
	refillAt int64         // the writer waits while more messages than this are in flight
	ended    chan struct{} // the reader is done
	closing  atomic.Bool   // the run closes the stream: its end is no failure
	// lines: the stream is newline-framed, so a message (one line, see
	// template) is framed by appending '\n'.
	lines bool

	buf, scratch []byte
	// stopped is when sending stopped, last when the last answer came
	// (the reader's; read once it ended): the run's measured time ends
	// at the later of the two.
	stopped, last time.Duration
}

func newWorker(r *runner, i int, s conn.Stream, lines bool) *worker {
	tg, sh := r.stats.place(i)
	return &worker{
		i: i, r: r, stream: s, tg: tg, sh: sh, lines: lines,
		refillAt: int64(r.depth) - refillLow(r.depth),
		rnd:      rand.New(rand.NewPCG(uint64(i)+1, uint64(time.Now().UnixNano()))),
		pending:  newPendingSet(4 * r.depth * r.calls.batch),
		left:     make(map[uint64]int),
		nextID:   1,
		idText:   newDecimal(),
		wake:     make(chan struct{}, 1),
		ended:    make(chan struct{}),
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

// closedLoop keeps -depth messages in flight, until ctx is done or the
// budget (-n) is spent.
func (w *worker) closedLoop(ctx context.Context) {
	depth := int64(w.r.depth)
	for {
		if w.r.budget.Load() <= 0 {
			return // -n sent: what is in flight is the drain's to wait for
		}
		in := w.inflight.Load()
		if in > w.refillAt {
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
		if !w.send(ctx, int(min(depth-in, maxPerWrite)), func() time.Duration { return now }) {
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
	left := r.reserve(n * r.calls.batch)
	if left == 0 {
		return false
	}
	seq := r.seq.Add(uint64(left)) - uint64(left)
	var reqs, notes, msgs int64
	w.mu.Lock()
	for left > 0 {
		k := min(r.calls.batch, left)
		left -= k
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
			seq++
			if c.notify || (r.calls.notify > 0 && w.rnd.Float64() < r.calls.notify) {
				w.buf = appendCall(w.buf, c, nil, seq, w.rnd)
				notes++
				continue
			}
			w.pending.add(pend{id: w.nextID, start: start, call: c, msg: first})
			w.buf = appendCall(w.buf, c, w.idText.text(), seq, w.rnd)
			w.nextID++
			w.idText.inc()
			msgReqs++
		}
		if r.calls.batch > 1 {
			w.buf = append(w.buf, ']')
			if msgReqs > 1 {
				w.left[first] = msgReqs
			}
		}
		if w.lines {
			w.buf = append(w.buf, '\n')
		} else {
			w.buf = w.stream.FrameInPlace(w.buf, m)
		}
		if msgReqs > 0 {
			msgs++
			reqs += int64(msgReqs)
		}
	}
	w.mu.Unlock()
	w.inflight.Add(msgs)
	w.tg.requests.Add(reqs)
	w.tg.notifications.Add(notes)
	w.tg.bytesOut.Add(int64(len(w.buf)))
	w.wmu.Lock()
	err := w.stream.Write(w.buf)
	w.wmu.Unlock()
	if err != nil {
		w.broken(err)
		return false
	}
	return ctx.Err() == nil
}

// read matches answers to requests until the stream ends. It accounts
// for a burst of answers at once (those one read brought): one clock
// reading, one lock of the stats, one wake-up of the writer.
func (w *worker) read() {
	defer close(w.ended)
	rd := reading{scan: codec.NewScanner(nil), canon: codec.NewCanonicalizer(nil)}
	// With -jsonrpc1, 1.0 answers are results too.
	rd.scan.SetJSONRPC1(w.r.calls.v1)
	locked := false // w.mu is held for the burst: Next does not block within it
	end := func() {
		if locked {
			w.mu.Unlock()
			locked = false
		}
		w.flush(&rd)
	}
	for {
		msg, err := w.stream.Next()
		callErr, _ := err.(*conn.CallError) // no answer came: why, for one call
		if err != nil && callErr == nil {
			var fe *codec.FrameError
			if errors.As(err, &fe) {
				rd.t.unknown++ // a frame nobody could read: no request it answers
				if !w.stream.Buffered() {
					end()
				}
				continue
			}
			end()
			if !w.closing.Load() {
				w.broken(err)
			}
			return
		}
		if !locked {
			rd.now = time.Since(w.r.start)
			w.last = rd.now
			w.mu.Lock()
			locked = true
		}
		rd.t.bytesIn += int64(len(msg))
		if callErr != nil {
			w.refused(callErr, &rd)
		} else if id, result, ok := fastResult(msg, &rd.passed); ok {
			w.answer(id, result, nil, &rd)
		} else if msgs, _, err := rd.scan.Scan(msg); err != nil {
			rd.t.unknown++
		} else {
			asked := false
			for i := range msgs {
				switch m := &msgs[i]; m.Kind {
				case codec.KindResult, codec.KindError, codec.KindBadResponse:
					id, err := strconv.ParseUint(string(m.ID), 10, 64)
					if err != nil {
						id = 0 // never sent
					}
					w.answer(id, m.Result, m, &rd)
				case codec.KindRequest:
					asked = true
				}
			}
			if asked { // the server's requests are answered outside the lock
				end()
				for i := range msgs {
					if msgs[i].Kind == codec.KindRequest {
						w.reply(&msgs[i])
					}
				}
			}
		}
		if !w.stream.Buffered() || len(rd.lats) >= 1024 {
			end()
		}
	}
}

// reading is the reader's state, and what it counted since its last
// flush.
type reading struct {
	scan   *codec.Scanner
	canon  *codec.Canonicalizer
	now    time.Duration
	lats   []int64 // latencies of the answers counted in t
	passed []byte  // for fastResult: the last result that passed its check
	t      tally
	freed  int64 // messages fully answered: room for the writer
}

// flush hands what the reader counted to the stats. It wakes the writer
// only when that has work: when the answers made room for a refill (the
// closed loop waits for it), or when nothing is in flight any more (the
// end waits for that) — not on every read, which would cost a goroutine
// hand-off per read.
func (w *worker) flush(rd *reading) {
	w.sh.add(rd.lats, &rd.t)
	rd.lats, rd.t = rd.lats[:0], tally{codes: rd.t.codes, samples: rd.t.samples}
	clear(rd.t.codes)
	if rd.freed > 0 {
		now := w.inflight.Add(-rd.freed)
		was := now + rd.freed
		rd.freed = 0
		if now == 0 || (was > w.refillAt && now <= w.refillAt) {
			select {
			case w.wake <- struct{}{}:
			default:
			}
		}
	}
}

// refillLow is how many messages must be free before the closed loop
// refills: deep pipelines refill in bulk, once a quarter of the depth (at
// most one write's worth) is free — one write per refill, not one per
// answer.
func refillLow(depth int) int64 {
	return int64(max(1, min(depth/4, maxPerWrite)))
}

// answer matches an answer to request id (0: not an id loadgen sends):
// a result, or the message m (nil for a result read by fastResult) of
// an error or a bad response. w.mu is held.
func (w *worker) answer(id uint64, result []byte, m *codec.Message, rd *reading) {
	p, ok := w.settle(id, rd)
	if !ok {
		return
	}
	rd.lats = append(rd.lats, int64(rd.now-p.start))
	t := &rd.t
	t.responses++
	switch {
	case m == nil || m.Kind == codec.KindResult:
		if p.call.expect != nil {
			got, err := rd.canon.Append(w.scratch[:0], result)
			w.scratch = got
			if err != nil || string(got) != string(p.call.expect) {
				t.mismatches++
				return
			}
		}
		t.ok++
	case m.Kind == codec.KindError:
		t.errorAnswer(errorCode(m.ErrorObj), m.ErrorObj)
	default: // both result and error, say: an error of no code
		t.errorAnswer(0, []byte(m.Err.Error()))
	}
}

// settle takes the request id off the pending table, counting what it
// frees; false (counted) when it was not pending.
func (w *worker) settle(id uint64, rd *reading) (pend, bool) {
	p, ok := w.pending.take(id)
	if !ok {
		if id > 0 && id < w.nextID {
			rd.t.duplicates++
		} else {
			rd.t.unknown++
		}
		return p, false
	}
	if n, batch := w.left[p.msg]; !batch {
		rd.freed++
	} else if n == 1 {
		delete(w.left, p.msg)
		rd.freed++
	} else {
		w.left[p.msg] = n - 1
	}
	return p, true
}

// refused counts the request the transport failed without an answer
// (conn.CallError: an HTTP status that is no JSON-RPC answer) as a
// transport error.
func (w *worker) refused(ce *conn.CallError, rd *reading) {
	id, err := strconv.ParseUint(string(ce.ID), 10, 64)
	if err != nil {
		id = 0 // never sent
	}
	if _, ok := w.settle(id, rd); !ok {
		return
	}
	rd.t.transport++
	rd.t.errors++
	w.r.transportError(ce.Err)
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
	n := w.pending.len()
	w.pending.clear()
	clear(w.left)
	w.mu.Unlock()
	if n > 0 {
		w.sh.add(nil, &tally{transport: int64(n), errors: int64(n)})
	}
	if _, dead := w.stream.(*deadStream); !dead { // dialAll noted it
		w.r.transportError(err)
	}
}

// drain waits up to the run's timeout for the answers in flight (or
// until the run stops waiting), then closes the stream; what is still
// unanswered is lost.
func (w *worker) drain() {
	timeout := time.NewTimer(w.r.timeout)
	defer timeout.Stop()
wait:
	for w.inFlight() > 0 {
		select {
		case <-w.wake: // the reader freed a message: look again
		case <-w.ended:
			break wait
		case <-timeout.C:
			break wait
		case <-w.r.quit:
			break wait
		}
	}
	w.closing.Store(true)
	w.stream.Close()
	<-w.ended
	w.mu.Lock()
	lost := w.pending.len()
	w.pending.clear()
	w.mu.Unlock()
	w.tg.lost.Add(int64(lost))
}

// inFlight is how many requests are unanswered.
func (w *worker) inFlight() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.pending.len()
}
