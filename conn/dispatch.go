package conn

import (
	"context"
	"errors"
	"runtime/debug"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/pool"
	"github.com/mcpwire/mcpwire/router"
)

// Errors the connection answers with on its own account. Shared, read-only.
var (
	errShuttingDown = codec.NewError(codec.CodeOverloaded, "Server shutting down")
	errTimeout      = codec.NewError(codec.CodeRequestTimeout, "")
)

// dispatch serves one request or notification of frame: inline on the
// reader, or on the pool with a copy of the frame (shared through ref by the
// elements of a batch). b is the batch it belongs to, or nil.
func (c *Conn) dispatch(frame []byte, m *codec.Message, b *batch, slot int, ref **frameRef) {
	name := m.Method
	if m.MethodEscaped {
		name = m.AppendMethod(nil) // rare: escaped method names
	}
	isCall := m.Kind == codec.KindRequest
	e, ok := c.opts.Router.Lookup(name)
	switch {
	case !ok:
		var e *codec.Error
		if isCall { // rare path: say which name was not found
			e = codec.ErrMethodNotFound.WithData(map[string]string{"method": string(name)})
		}
		c.answer(b, slot, isCall, m.ID, e)
		return
	case c.stopping.Load():
		c.answer(b, slot, isCall, m.ID, errShuttingDown)
		return
	case e.Inline:
		c.serveInline(e, m, b, slot)
		return
	}

	if !c.limit.TryAcquire() {
		if c.opts.Overload == Reject {
			c.answer(b, slot, isCall, m.ID, c.overloaded)
			return
		}
		c.flushHeld() // about to block: let the peer have what is done
		if c.limit.Acquire(c.ctx) != nil {
			c.answer(b, slot, isCall, m.ID, errShuttingDown)
			return
		}
	}
	if !c.admit() { // stopping began while this one waited
		c.limit.Release()
		c.answer(b, slot, isCall, m.ID, errShuttingDown)
		return
	}
	if *ref == nil {
		*ref = c.copyFrame(frame)
	}
	t := taskPool.Get().(*task)
	t.c, t.h, t.b, t.slot, t.ref = c, e.Handler, b, slot, *ref
	t.ref.refs.Add(1)
	t.req = router.Request{Method: e.Method, ID: t.ref.rebase(frame, m.ID), Params: t.ref.rebase(frame, m.Params)}
	if isCall {
		c.inflight.add(t)
	}
	if c.opts.Pool == nil {
		go t.Run()
		return
	}
	if err := c.opts.Pool.Submit(t); err != nil {
		rpcErr := errShuttingDown
		var oe *pool.OverloadedError
		if errors.As(err, &oe) {
			rpcErr = c.overloaded
		}
		t.abandon(rpcErr)
	}
}

// answer sends, from the reader, the error e for a request (nothing for a
// notification).
func (c *Conn) answer(b *batch, slot int, isCall bool, id []byte, e *codec.Error) {
	var resp *codec.Buffer
	if isCall {
		resp = c.errorResponse(id, e)
	}
	c.respond(b, slot, resp, true)
}

// errorResponse encodes an error response into a pooled buffer.
func (c *Conn) errorResponse(id []byte, e *codec.Error) *codec.Buffer {
	resp := c.bufs.Get()
	resp.B = codec.AppendError(resp.B, id, e)
	return resp
}

// serveInline runs an inline handler on the reader. Outside a batch its
// response is encoded straight into the reader's held output.
func (c *Conn) serveInline(e *router.Entry, m *codec.Message, b *batch, slot int) {
	// The reader owns inlineReq: no allocation per inline call.
	c.inlineReq = router.Request{Method: e.Method, ID: m.ID, Params: m.Params}
	if b != nil {
		var resp *codec.Buffer
		if m.ID != nil {
			resp = c.bufs.Get()
		}
		if c.run(c.ctx, e.Handler, &c.inlineReq, resp) {
			b.complete(slot, resp, true)
		} else {
			b.complete(slot, nil, true)
		}
	} else {
		start := len(c.held.B)
		if c.run(c.ctx, e.Handler, &c.inlineReq, &c.held) {
			c.held.B = codec.FrameInPlace(c.held.B, start, c.opts.Framing)
			c.heldFull()
		}
	}
	c.inlineReq = router.Request{}
}

// respond delivers a response (nil: none) to its batch, or to the writer.
// reader is set only on the reading goroutine, which holds its output back.
func (c *Conn) respond(b *batch, slot int, resp *codec.Buffer, reader bool) {
	if b != nil {
		b.complete(slot, resp, reader)
		return
	}
	if resp != nil {
		c.write(resp.B, reader)
		c.bufs.Put(resp)
	}
}

// write queues one encoded message: on the reader, into its held output;
// elsewhere, to the writer. A broken stream ends the connection.
func (c *Conn) write(msg []byte, reader bool) {
	if reader {
		c.held.B = codec.AppendFrame(c.held.B, c.opts.Framing, msg)
		c.heldFull()
		return
	}
	if err := c.out.send(msg); err != nil && !errors.Is(err, ErrClosed) {
		c.terminate(err)
	}
}

// heldFlushBytes is how much output the reader holds back before it flushes
// even though more input is buffered.
const heldFlushBytes = 64 << 10

// heldFull flushes the reader's held output once it is large.
func (c *Conn) heldFull() {
	if len(c.held.B) >= heldFlushBytes {
		c.flushHeld()
	}
}

// flushHeld hands the reader's held output to the writer. Reader only.
func (c *Conn) flushHeld() error {
	if len(c.held.B) == 0 {
		return nil
	}
	var err error
	c.held.B, err = c.out.sendHeld(c.held.B)
	if err != nil && !errors.Is(err, ErrClosed) {
		c.terminate(err)
	}
	return err
}

// run calls h and appends the response for req to out.B, reporting whether
// it did (not for a notification, whose out may be nil). It never panics: a
// handler panic is logged with its stack and answered -32603.
func (c *Conn) run(ctx context.Context, h router.Handler, req *router.Request, out *codec.Buffer) (answered bool) {
	start := -1 // where the response begins, once the handler returned
	defer func() {
		if r := recover(); r != nil {
			c.opts.Logger.Error("jsonrpc: handler panic", "method", req.Method, "panic", r, "stack", string(debug.Stack()))
			if req.ID != nil {
				if start >= 0 {
					out.B = out.B[:start] // the panic was in encoding
				}
				out.B = codec.AppendError(out.B, req.ID, codec.ErrInternal)
				answered = true
			}
		}
	}()
	res, err := h.Handle(ctx, req)
	if req.ID == nil {
		return false
	}
	start = len(out.B)
	if err != nil {
		out.B = codec.AppendError(out.B, req.ID, rpcError(err))
		return true
	}
	if out.B, err = codec.AppendResultValue(out.B, req.ID, res); err != nil {
		c.opts.Logger.Error("jsonrpc: cannot encode result", "method", req.Method, "err", err)
		out.B = codec.AppendError(out.B[:start], req.ID, codec.NewError(codec.CodeInternalError, "Internal error: result cannot be encoded"))
	}
	return true
}

// rpcError turns a handler's error into the error object to send.
func rpcError(err error) *codec.Error {
	var e *codec.Error
	switch {
	case errors.As(err, &e):
		return e
	case errors.Is(err, context.DeadlineExceeded):
		return errTimeout
	default:
		return codec.NewError(codec.CodeInternalError, err.Error())
	}
}
