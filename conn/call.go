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

// call is one outgoing request waiting for its response.
type call struct {
	done   chan struct{}
	result codec.Raw
	err    error
}

// pendingCalls maps the ids of our outgoing calls to their waiters. Ids are
// decimal numbers from a counter, so they never collide on a connection.
type pendingCalls struct {
	mu     sync.Mutex
	m      map[uint64]*call
	next   atomic.Uint64
	closed error
	wake   context.CancelFunc // set while the reader waits for admission
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

func (p *pendingCalls) init() { p.m = make(map[uint64]*call) }

func (p *pendingCalls) add() (uint64, *call, error) {
	id := p.next.Add(1)
	cl := &call{done: make(chan struct{})}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed != nil {
		return 0, nil, p.closed
	}
	p.m[id] = cl
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
	p.mu.Unlock()
	return cl
}

// failAll ends every pending call with err, and every later one.
func (p *pendingCalls) failAll(err error) {
	p.mu.Lock()
	p.closed = err
	m := p.m
	p.m = make(map[uint64]*call)
	p.mu.Unlock()
	for _, cl := range m {
		cl.err = err
		close(cl.done)
	}
}

// wireError is an error object as received.
type wireError struct {
	Code    codec.Code      `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data"`
}

// deliver hands a response to its caller. Responses to unknown ids (late,
// cancelled or bogus) are dropped.
func (p *pendingCalls) deliver(m *codec.Message, log *slog.Logger) {
	id, err := strconv.ParseUint(string(m.ID), 10, 64)
	var cl *call
	if err == nil {
		cl = p.take(id)
	}
	if cl == nil {
		log.Debug("jsonrpc: response to an unknown id dropped", "id", string(m.ID))
		return
	}
	if m.Kind == codec.KindResult {
		cl.result = append(codec.Raw(nil), m.Result...)
	} else {
		var we wireError
		if err := codec.Unmarshal(m.ErrorObj, &we); err != nil {
			cl.err = codec.NewError(codec.CodeInternalError, "malformed error response: "+err.Error())
		} else {
			e := &codec.Error{Code: we.Code, Message: we.Message}
			if len(we.Data) > 0 {
				e.Data = codec.Raw(we.Data)
			}
			cl.err = e
		}
	}
	close(cl.done)
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
	id, cl, err := c.calls.add()
	if err != nil {
		return nil, err
	}
	var idb [20]byte
	if err := c.sendRequest(ctx, strconv.AppendUint(idb[:0], id, 10), method, params); err != nil {
		if c.calls.take(id) != nil {
			return nil, err
		}
		// The write failed after the request went out, and the response
		// was delivered (or the call ended with the connection) meanwhile:
		// what the call holds is the truth.
		<-cl.done
		return cl.result, cl.err
	}
	select {
	case <-cl.done:
		return cl.result, cl.err
	case <-ctx.Done():
		if c.calls.take(id) == nil {
			<-cl.done // delivered meanwhile
			return cl.result, cl.err
		}
		return nil, &CanceledCallError{ID: strconv.AppendUint(nil, id, 10), Err: ctx.Err()}
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
	p := respBufs.Get()
	defer respBufs.Put(p)
	if params != nil {
		var err error
		if p.B, err = codec.AppendValue(p.B, params); err != nil {
			return err
		}
		if len(p.B) == 0 || (p.B[0] != '[' && p.B[0] != '{') {
			if string(p.B) != "null" {
				return ErrBadParams
			}
			p.B = p.B[:0]
		}
	}
	var ps []byte
	if len(p.B) > 0 {
		ps = p.B
	}
	b := respBufs.Get()
	defer respBufs.Put(b)
	b.B = codec.AppendRequest(b.B, id, method, ps)
	if r, ok := ctx.Value(relatedKey{}).(*bodyReply); ok && r.c == c && r.relate(b.B) {
		return nil
	}
	return c.out.send(b.B)
}
