package conn

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/mcpwire/mcpwire/codec"
)

// call is one outgoing request waiting for its response. Whoever takes it
// out of pendingCalls (the response's delivery, failAll, or its caller
// giving up) owns it; delivery and failAll signal done, once. The caller
// reads the outcome with pendingCalls.finish, which keeps the call for
// reuse: done is buffered, so that it is signalled without being closed.
type call struct {
	done   chan struct{}
	result codec.Raw
	err    error
	next   *call // in pendingCalls.free
}

// signal tells cl's caller its outcome is set.
func (cl *call) signal() { cl.done <- struct{}{} }

// pendingCalls maps the ids of our outgoing calls to their waiters. Ids are
// decimal numbers from a counter, so they never collide on a connection.
type pendingCalls struct {
	mu     sync.Mutex
	m      map[uint64]*call
	n      atomic.Int32 // len(m), for reading without mu
	nfree  int32        // the length of free
	next   atomic.Uint64
	closed error
	wake   context.CancelFunc // set while the reader waits for admission
	// free holds finished calls for reuse, at most maxFreeCalls: the
	// connection's own, not shared (a channel made in a synctest bubble
	// must stay in it).
	free *call

	unmatched func(Unmatched, []byte) // Options.OnUnmatched, or nil
}

// readerWait returns the context the reader waits for admission under: it
// is cancelled as soon as a call is made, since the reader must then go on
// reading to deliver the response. busy reports calls already waiting:
// then the reader must not wait at all. stop is called after the wait.
func (p *pendingCalls) readerWait(parent context.Context) (ctx context.Context, stop func(), busy bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.m) > 0 {
		return nil, nil, true
	}
	ctx, cancel := context.WithCancel(parent)
	p.wake = cancel
	return ctx, func() {
		p.mu.Lock()
		p.wake = nil
		p.mu.Unlock()
		cancel()
	}, false
}

func (p *pendingCalls) init(unmatched func(Unmatched, []byte)) {
	p.m = make(map[uint64]*call)
	p.unmatched = unmatched
}

func (p *pendingCalls) add() (uint64, *call, error) {
	id := p.next.Add(1)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed != nil {
		return 0, nil, p.closed
	}
	cl := p.free
	if cl != nil {
		p.free, cl.next = cl.next, nil
		p.nfree--
	} else {
		cl = &call{done: make(chan struct{}, 1)}
	}
	p.m[id] = cl
	p.n.Store(int32(len(p.m)))
	if p.wake != nil {
		p.wake()
		p.wake = nil
	}
	return id, cl, nil
}

func (p *pendingCalls) take(id uint64) *call {
	p.mu.Lock()
	cl := p.m[id]
	delete(p.m, id)
	p.n.Store(int32(len(p.m)))
	p.mu.Unlock()
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

// maxFreeCalls bounds what pendingCalls keeps for reuse after a burst.
const maxFreeCalls = 256

// finish returns cl's outcome and keeps cl for reuse. The caller calls it
// once, after done was signalled or it took cl out of the map itself.
func (p *pendingCalls) finish(cl *call) (codec.Raw, error) {
	r, err := cl.result, cl.err
	cl.result, cl.err = nil, nil
	p.mu.Lock()
	if p.nfree < maxFreeCalls {
		cl.next, p.free = p.free, cl
		p.nfree++
	}
	p.mu.Unlock()
	return r, err
}

// failAll ends every pending call with err, and every later one.
func (p *pendingCalls) failAll(err error) {
	p.mu.Lock()
	p.closed = err
	m := p.m
	p.m = make(map[uint64]*call)
	p.n.Store(0)
	p.mu.Unlock()
	for _, cl := range m {
		cl.err = err
		cl.signal()
	}
}

// wireError is an error object as received.
type wireError struct {
	Code    codec.Code      `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data"`
}

// deliver hands a response to its caller. Responses that find none (late,
// duplicated or bogus) are dropped, and told to Options.OnUnmatched.
func (p *pendingCalls) deliver(m *codec.Message, log *slog.Logger) {
	id, err := strconv.ParseUint(string(m.ID), 10, 64)
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
	cl.result, cl.err = outcome(m)
	cl.signal()
}

// outcome returns what the response m answers: a copy of its result, or
// its error.
func outcome(m *codec.Message) (codec.Raw, error) {
	if m.Kind == codec.KindResult {
		return append(codec.Raw(nil), m.Result...), nil
	}
	var we wireError
	if err := codec.Unmarshal(m.ErrorObj, &we); err != nil {
		return nil, codec.NewError(codec.CodeInternalError, "malformed error response: "+err.Error())
	}
	e := &codec.Error{Code: we.Code, Message: we.Message}
	if len(we.Data) > 0 {
		e.Data = codec.Raw(we.Data)
	}
	return nil, e
}

// ErrBadParams is returned by Call and Notify for params that do not encode
// to a JSON array or object.
var ErrBadParams = errors.New("conn: params must encode to a JSON array or object")

// Call sends a request and waits for its response, decoding the result into
// result (nil: discard it). params is encoded with sonic (a codec.Raw is sent
// verbatim) and must be an array or an object, or nil for none. An error
// response is returned as a *codec.Error; a cancelled ctx abandons the call
// (a late response is dropped).
//
// Sent with the context of a pooled handler serving a body of
// ServeBodySink (or one derived from it), the request goes to that body's
// Related sink while the body is unsettled; see ServeBodySink.
func (c *Conn) Call(ctx context.Context, method string, params, result any) error {
	raw, err := c.CallRaw(ctx, method, params)
	if err != nil || result == nil {
		return err
	}
	return codec.Unmarshal(raw, result)
}

// CanceledCallError is what Call and CallRaw return when ctx ends before the
// response arrives: the request went out under ID, so the caller can tell
// the peer it is no longer wanted (MCP's notifications/cancelled). It wraps
// ctx's error: errors.Is(err, context.Canceled) holds.
type CanceledCallError struct {
	ID  codec.Raw // the request's id as sent
	Err error     // ctx.Err()
}

func (e *CanceledCallError) Error() string {
	return "conn: call " + string(e.ID) + " abandoned: " + e.Err.Error()
}

// Unwrap returns ctx's error.
func (e *CanceledCallError) Unwrap() error { return e.Err }

// CallRaw is Call returning the raw result.
func (c *Conn) CallRaw(ctx context.Context, method string, params any) (codec.Raw, error) {
	if c.direct != nil && !c.relates(ctx) {
		return c.direct.callRaw(ctx, c, method, params)
	}
	id, cl, err := c.calls.add()
	if err != nil {
		return nil, err
	}
	var idb [20]byte
	if err := c.sendRequest(ctx, strconv.AppendUint(idb[:0], id, 10), method, params); err != nil {
		return c.calls.abandon(id, cl, err)
	}
	select {
	case <-cl.done:
		return c.calls.finish(cl)
	case <-ctx.Done():
		return c.calls.abandon(id, cl, &CanceledCallError{ID: strconv.AppendUint(nil, id, 10), Err: ctx.Err()})
	}
}

// Notify sends a notification: to the session's stream, or to the Related
// sink of the body ctx's request came in, as Call does.
func (c *Conn) Notify(ctx context.Context, method string, params any) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return c.sendRequest(ctx, nil, method, params)
}

// sendRequest sends a request (id set) or a notification: to the body
// ctx's request came in while that body takes related messages
// (ServeBodySink), else to the session's stream.
func (c *Conn) sendRequest(ctx context.Context, id []byte, method string, params any) error {
	b := respBufs.Get()
	defer respBufs.Put(b)
	var err error
	if b.B, err = appendRequest(b.B, id, method, params); err != nil {
		return err
	}
	return c.sendMessage(ctx, id, b.B)
}

// appendRequest appends the request (or, id nil, the notification) with
// params encoded in place; on an error dst is returned unchanged. See
// paramsKept for what params may be.
func appendRequest(dst, id []byte, method string, params any) ([]byte, error) {
	start := len(dst)
	dst = codec.AppendRequest(dst, id, method, nil)
	if params == nil {
		return dst, nil
	}
	end := len(dst) - 1                      // the closing '}'
	dst = append(dst[:end], `,"params":`...) // reopen the object
	at := len(dst)
	dst, err := codec.AppendValue(dst, params)
	if err == nil {
		var keep bool
		if keep, err = paramsKept(dst[at:]); err == nil {
			if !keep {
				dst = dst[:end]
			}
			return append(dst, '}'), nil
		}
	}
	return dst[:start], err
}

// paramsKept reports whether params encoded as ps go in the request: an
// array or an object does; null is dropped (as nil params are); anything
// else is ErrBadParams.
func paramsKept(ps []byte) (bool, error) {
	if len(ps) > 0 && (ps[0] == '[' || ps[0] == '{') {
		return true, nil
	}
	if string(ps) == "null" {
		return false, nil
	}
	return false, ErrBadParams
}

// sendMessage sends one whole message (a request with its id, a
// notification or a batch with none): to the body ctx's request came in
// while that body takes related messages (ServeBodySink), else to the
// session's stream — or straight to the peer of an InProcess session.
func (c *Conn) sendMessage(ctx context.Context, id, msg []byte) error {
	if r, ok := ctx.Value(relatedKey{}).(*bodyReply); ok && r.c == c && r.relate(msg) {
		return nil
	}
	if c.direct != nil {
		return c.direct.send(ctx, id, msg)
	}
	return c.out.sendCall(msg, c.calls.n.Load() > 1)
}

// relates reports whether ctx is a handler's of this session serving a
// body that still takes related messages (ServeBodySink).
func (c *Conn) relates(ctx context.Context) bool {
	r, ok := ctx.Value(relatedKey{}).(*bodyReply)
	if !ok || r.c != c {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.related != nil
}
