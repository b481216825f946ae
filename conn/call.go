package conn

import (
	"context"
	"errors"
	"strconv"

	"github.com/mcpwire/mcpwire/codec"
)

// call is one outgoing request waiting for its response. Whoever takes it
// out of pendingCalls (the response's delivery, failAll, or its caller
// giving up) owns it; delivery and failAll signal done, once. The caller
// reads the outcome with pendingCalls.finish, which keeps the call for
// reuse: done is buffered, so that it is signalled without being closed.
type call struct {
	done   chan struct{}
	dst    []byte // what the result is appended to (AppendCall), set by add
	result codec.Raw
	err    error
	home   *callShard // the shard whose free list it goes back to
	next   *call      // in that free list
}

// signal tells cl's caller its outcome is set.
func (cl *call) signal() { cl.done <- struct{}{} }

// outcome returns what the response m answers: its result appended to dst
// (a copy, nil dst: a new one), or its error (malformedResponse when the
// error object breaks the rules: see errorOutcome).
func outcome(m *codec.Message, dst []byte) (codec.Raw, error) {
	if m.Kind == codec.KindResult {
		return append(dst, m.Result...), nil
	}
	return nil, errorOutcome(m.ErrorObj)
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

// CallRaw is Call returning the raw result: a copy that is the caller's.
func (c *Conn) CallRaw(ctx context.Context, method string, params any) (codec.Raw, error) {
	return c.AppendCall(ctx, nil, method, params)
}

// AppendCall is CallRaw with the raw result appended to dst, the
// extended buffer returned: a caller that has room for the usual result
// (in an allocation of its own) saves the copy's. dst must not be used
// until AppendCall returns; on an error the result is nil.
func (c *Conn) AppendCall(ctx context.Context, dst []byte, method string, params any) (codec.Raw, error) {
	if c.direct != nil && c.relatedBody(ctx) == nil {
		return c.direct.callRaw(ctx, c, dst, method, params)
	}
	id, cl, err := c.calls.add(dst)
	if err != nil {
		return nil, err
	}
	var idb [20]byte
	if err := c.sendRequest(ctx, strconv.AppendUint(idb[:0], id, 10), method, params); err != nil {
		return c.calls.abandon(id, cl, err)
	}
	done := ctx.Done()
	if done == nil { // a context that never ends: a plain receive, no select
		<-cl.done
		return c.calls.finish(cl)
	}
	select {
	case <-cl.done:
		return c.calls.finish(cl)
	case <-done:
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
	if b.B, err = c.appendRequest(b.B, id, method, params); err != nil {
		return err
	}
	return c.sendMessage(ctx, b.B)
}

// appendRequest is appendRequest, or appendRequest1 under
// Options.SendJSONRPC1.
func (c *Conn) appendRequest(dst, id []byte, method string, params any) ([]byte, error) {
	if c.opts.SendJSONRPC1 {
		return appendRequest1(dst, id, method, params)
	}
	return appendRequest(dst, id, method, params)
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

// sendMessage sends one whole message (a request, a notification, a
// batch): to the body ctx's request came in while that body takes related
// messages (ServeBodySink), else to the session's stream — or straight to
// the peer of an InProcess session.
func (c *Conn) sendMessage(ctx context.Context, msg []byte) error {
	if r := c.relatedBody(ctx); r != nil && r.relate(msg) {
		return nil
	}
	if c.direct != nil {
		return c.direct.post(ctx, msg)
	}
	return c.out.sendCall(msg, c.calls.n.Load() > 1)
}

// relatedBody returns the body of this session that ctx, a handler's
// context or one made by WithSink, routes messages to, or nil.
func (c *Conn) relatedBody(ctx context.Context) *bodyReply {
	if r, ok := ctx.Value(relatedKey{}).(*bodyReply); ok && r.c == c {
		return r
	}
	return nil
}
