package conn

import (
	"context"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/mcpwire/mcpwire/codec"
)

// pendingCalls maps the ids of our outgoing calls to their waiters. Ids are
// decimal numbers from a counter, so they never collide on a connection.
// The map is sharded by id, so that many callers and the reader delivering
// their responses do not all queue for one lock. The shards are made by
// the first call: a connection that never calls (most of a server's)
// holds none.
type pendingCalls struct {
	shards atomic.Pointer[[callShards]callShard]
	n      atomic.Int32 // calls pending in all shards, for reading without a lock
	next   atomic.Uint64
	// ended is set once by failAll, after endErr: every later call
	// fails with endErr.
	ended  atomic.Bool
	endErr error

	// waiting is set while the reader waits for admission, wake then
	// cancelling its wait (readerWait); both under waitMu.
	waitMu  sync.Mutex
	waiting atomic.Bool
	wake    context.CancelFunc

	unmatched func(Unmatched, []byte) // Options.OnUnmatched, or nil
}

// callShards is how many shards pendingCalls has; a call's is its id
// modulo callShards.
const callShards = 8

// callShard is one shard of pendingCalls, on a cache line of its own.
type callShard struct {
	mu     sync.Mutex
	m      map[uint64]*call
	closed error
	// free holds finished calls for reuse, at most maxFreeCalls per
	// shard: the connection's own, not shared (a channel made in a
	// synctest bubble must stay in it).
	free  *call
	nfree int32
	_     [16]byte // to 64 bytes
}

func (p *pendingCalls) init(unmatched func(Unmatched, []byte)) {
	p.unmatched = unmatched
}

// readerWait returns the context the reader waits for admission under: it
// is cancelled as soon as a call is made, since the reader must then go on
// reading to deliver the response. busy reports calls already waiting:
// then the reader must not wait at all. stop is called after the wait.
func (p *pendingCalls) readerWait(parent context.Context) (ctx context.Context, stop func(), busy bool) {
	p.waitMu.Lock()
	defer p.waitMu.Unlock()
	ctx, cancel := context.WithCancel(parent)
	p.wake = cancel
	p.waiting.Store(true) // then look at n: add counts, then looks at waiting
	if p.n.Load() > 0 {
		p.wake = nil
		p.waiting.Store(false)
		cancel()
		return nil, nil, true
	}
	return ctx, func() {
		p.waitMu.Lock()
		p.wake = nil
		p.waiting.Store(false)
		p.waitMu.Unlock()
		cancel()
	}, false
}

// add registers a call whose result is to be appended to dst.
func (p *pendingCalls) add(dst []byte) (uint64, *call, error) {
	id := p.next.Add(1)
	sh := &loadOrMake(&p.shards)[id%callShards]
	sh.mu.Lock()
	if sh.closed == nil && p.ended.Load() {
		sh.closed = p.endErr // failAll found no shards: see there
	}
	if sh.closed != nil {
		sh.mu.Unlock()
		return 0, nil, sh.closed
	}
	cl := sh.free
	if cl != nil {
		sh.free, cl.next = cl.next, nil
		sh.nfree--
	} else {
		cl = &call{done: make(chan struct{}, 1), home: sh}
	}
	cl.dst = dst
	if sh.m == nil {
		sh.m = make(map[uint64]*call)
	}
	sh.m[id] = cl
	sh.mu.Unlock()
	p.n.Add(1)
	if p.waiting.Load() {
		p.waitMu.Lock()
		if p.wake != nil {
			p.wake()
			p.wake = nil
		}
		p.waitMu.Unlock()
	}
	return id, cl, nil
}

func (p *pendingCalls) take(id uint64) *call {
	shards := p.shards.Load()
	if shards == nil {
		return nil // no call was ever made
	}
	sh := &shards[id%callShards]
	sh.mu.Lock()
	cl, ok := sh.m[id]
	if ok {
		delete(sh.m, id)
	}
	sh.mu.Unlock()
	if ok {
		p.n.Add(-1)
	}
	return cl
}

// abandon ends the call id, cl with err (its write failed, or its caller
// gave up) unless its response was delivered meanwhile, or the call ended
// with the connection: then what the call holds is the truth.
func (p *pendingCalls) abandon(id uint64, cl *call, err error) (codec.Raw, error) {
	if p.take(id) == nil {
		<-cl.done
	} else {
		cl.err = err
	}
	return p.finish(cl)
}

// maxFreeCalls bounds what a shard of pendingCalls keeps for reuse after a
// burst.
const maxFreeCalls = 32

// finish returns cl's outcome and keeps cl for reuse. The caller calls it
// once, after done was signalled or it took cl out of the map itself.
func (p *pendingCalls) finish(cl *call) (codec.Raw, error) {
	r, err := cl.result, cl.err
	cl.dst, cl.result, cl.err = nil, nil, nil
	sh := cl.home
	sh.mu.Lock()
	if sh.nfree < maxFreeCalls {
		cl.next, sh.free = sh.free, cl
		sh.nfree++
	}
	sh.mu.Unlock()
	return r, err
}

// failAll ends every pending call with err, and every later one (which
// finds its shard closed, or ended set).
func (p *pendingCalls) failAll(err error) {
	// A connection that never called has no shards, and gets none: ended
	// is set before the shards are looked at, so that an add that makes
	// them after that look finds it set once it holds its shard's lock.
	p.endErr = err
	p.ended.Store(true)
	shards := p.shards.Load()
	if shards == nil {
		return
	}
	for i := range shards {
		sh := &shards[i]
		sh.mu.Lock()
		sh.closed = err
		m := sh.m
		sh.m = nil
		sh.mu.Unlock()
		p.n.Add(-int32(len(m)))
		for _, cl := range m {
			cl.err = err
			cl.signal()
		}
	}
}

// deliver hands a response to its caller. Responses that find none (late,
// duplicated or bogus) are dropped, and told to Options.OnUnmatched.
func (p *pendingCalls) deliver(m *codec.Message, log *slog.Logger) {
	id, err := parseID(m.ID)
	var cl *call
	if err == nil {
		cl = p.take(id)
	}
	if cl == nil {
		log.Debug("jsonrpc: response to an unknown id dropped", "id", string(m.ID))
		if p.unmatched != nil {
			why := UnmatchedUnknownID
			if err == nil && id != 0 && id <= p.next.Load() {
				why = UnmatchedNoCaller
			}
			p.unmatched(why, m.ID)
		}
		return
	}
	cl.result, cl.err = outcome(m, cl.dst)
	cl.signal()
}

// failMalformed fails the call whose id the malformed response m names
// with an error saying what was wrong (see malformed.go), and reports
// whether there was one. A malformed response that names no call waiting
// is not told to Options.OnUnmatched.
func (p *pendingCalls) failMalformed(m *codec.Message) bool {
	if m.ID == nil {
		return false
	}
	return p.fail(m.ID, func() error { return malformedResponse(malformedReason(m)) })
}

// fail ends the call whose id is id (as sent) with the error why makes,
// and reports whether one was waiting.
func (p *pendingCalls) fail(id []byte, why func() error) bool {
	n, err := parseID(id)
	if err != nil {
		return false
	}
	cl := p.take(n)
	if cl == nil {
		return false
	}
	cl.err = why()
	cl.signal()
	return true
}

// parseID parses the id of a response to one of our calls, as
// strconv.ParseUint(id, 10, 64) does: digits alone (up to 19, which cannot
// overflow) inline, anything else by ParseUint.
func parseID(id []byte) (uint64, error) {
	if len(id) == 0 || len(id) > 19 {
		return parseIDSlow(id)
	}
	var n uint64
	for _, c := range id {
		if c-'0' > 9 {
			return parseIDSlow(id)
		}
		n = n*10 + uint64(c-'0')
	}
	return n, nil
}

func parseIDSlow(id []byte) (uint64, error) { return strconv.ParseUint(string(id), 10, 64) }
