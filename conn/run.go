package conn

import (
	"context"
	"errors"
	"log/slog"
	"runtime/debug"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/router"
)

// run calls h and appends the response for req to out.B (not for a
// notification, whose out may be nil), and returns the response's code: 0
// for a result (and for a notification). It never panics: a handler panic
// is logged with its stack and answered -32603.
func (c *Conn) run(ctx context.Context, h router.Handler, req *router.Request, out *codec.Buffer) (code codec.Code) {
	start := -1 // where the response begins; none for a notification
	if req.ID != nil {
		start = len(out.B)
	}
	defer func() {
		if r := recover(); r != nil {
			if l := c.opts.Logger; l.Enabled(ctx, slog.LevelError) { // the stack is costly: only for a logger that keeps it
				l.Error("jsonrpc: handler panic", "method", req.Method, "panic", r, "stack", string(debug.Stack()))
			}
			if start >= 0 {
				out.B = codec.AppendError(out.B[:start], req.ID, codec.ErrInternal)
				code = codec.CodeInternalError
			}
		}
	}()
	var err error
	if ah, ok := h.(router.AppendHandler); ok && start >= 0 {
		// The result encoded in place, never put in an interface.
		if out.B, err = ah.HandleAppend(ctx, req, codec.AppendResultHead(out.B, req.ID)); err == nil {
			out.B = append(out.B, '}')
		}
	} else {
		var res any
		res, err = h.Handle(ctx, req)
		if start < 0 {
			if err != nil { // nobody to tell; the peer may provoke it: debug only
				c.opts.Logger.Debug("jsonrpc: notification handler error", "method", req.Method, "err", err)
			}
			return 0
		}
		if err == nil {
			if out.B, err = codec.AppendResultValue(out.B, req.ID, res); err != nil {
				err = &router.ResultError{Err: err}
			}
		}
	}
	if err == nil {
		return 0
	}
	out.B = out.B[:start]
	if re := (*router.ResultError)(nil); errors.As(err, &re) {
		c.opts.Logger.Error("jsonrpc: cannot encode result", "method", req.Method, "err", re.Err)
		out.B = codec.AppendError(out.B, req.ID, errUnencodable)
		return errUnencodable.Code
	}
	e := c.rpcError(ctx, req, err)
	out.B = codec.AppendError(out.B, req.ID, e)
	return e.Code
}

var errCancelled = codec.NewError(codec.CodeCancelled, codec.CodeCancelled.String())

var errUnencodable = codec.NewError(codec.CodeInternalError, "Internal error: result cannot be encoded")

// rpcError turns a handler's error into the error object to send. Errors
// that carry a JSON-RPC code go as they are; a deadline is -32012; the
// handler giving up because its context was cancelled is -32005, not
// logged (the peer or the session asked for it); any other error is
// -32603 "Internal error", logged, its text sent only with
// Options.ExposeErrors.
func (c *Conn) rpcError(ctx context.Context, req *router.Request, err error) *codec.Error {
	var e *codec.Error
	var ec codec.ErrCoder
	switch {
	case errors.As(err, &e):
		return e
	case errors.As(err, &ec):
		return codec.NewError(ec.ErrCode(), ec.Error())
	case errors.Is(err, context.DeadlineExceeded):
		return errTimeout
	case errors.Is(err, context.Canceled) && ctx.Err() != nil:
		return errCancelled
	}
	c.logHandlerError(req, err)
	if c.opts.ExposeErrors {
		return codec.NewError(codec.CodeInternalError, err.Error())
	}
	return codec.ErrInternal
}

func (c *Conn) logHandlerError(req *router.Request, err error) {
	c.opts.Logger.Error("jsonrpc: handler error", "method", req.Method, "err", err)
}
