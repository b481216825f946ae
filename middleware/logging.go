package middleware

import (
	"context"
	"errors"
	"log/slog"
	"time"
	"unicode/utf8"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/router"
)

// DefaultMaxParamBytes bounds the params a Logging record shows, unless
// LogOptions.MaxParamBytes says otherwise.
const DefaultMaxParamBytes = 512

// LogOptions configure Logging. A nil *LogOptions gives the defaults;
// Logging copies the value.
type LogOptions struct {
	// Level of each call's record (default slog.LevelInfo, the zero
	// Level).
	Level slog.Level
	// Message of each call's record (default "rpc").
	Message string
	// MaxParamBytes bounds the params shown when the logger is enabled at
	// debug level; longer ones are cut at a character boundary and end
	// with "…" (default DefaultMaxParamBytes; negative: params are never
	// shown).
	MaxParamBytes int
}

// Logging returns middleware that writes one record per call to logger,
// once the handler has returned (or panicked), with
//
//   - method: the method's name;
//   - id: the request's id as sent (absent for a notification);
//   - duration: how long the rest of the chain and the handler took;
//   - code: the JSON-RPC error code of the answer, 0 for a result (-32603
//     for a panic; a deadline -32012 and a cancellation -32005, as the
//     connection answers them);
//   - error: the error's text, for a coded error only (other errors'
//     text is the connection's to log, and is kept from the peer);
//   - params: only when logger is enabled at debug level, cut to
//     MaxParamBytes, with the value of _meta.authorization replaced by
//     "REDACTED".
//
// When logger is not enabled at Level the middleware costs one Enabled
// call; a nil logger makes it return the handler it wraps as it is. The
// records carry the handler's context, so a handler of logger may read
// what the middleware outside put there (a trace, say).
func Logging(logger *slog.Logger, opts *LogOptions) router.Middleware {
	var o LogOptions
	if opts != nil {
		o = *opts
	}
	if o.Message == "" {
		o.Message = "rpc"
	}
	if o.MaxParamBytes == 0 {
		o.MaxParamBytes = DefaultMaxParamBytes
	}
	return func(next router.Handler) router.Handler {
		if logger == nil {
			return next
		}
		return &logging{log: logger, opts: o, next: next}
	}
}

type logging struct {
	log  *slog.Logger
	opts LogOptions
	next router.Handler
}

func (l *logging) Handle(ctx context.Context, req *router.Request) (res any, err error) {
	if !l.log.Enabled(ctx, l.opts.Level) {
		return l.next.Handle(ctx, req)
	}
	start := time.Now()
	returned := false
	defer func() {
		code := codec.CodeInternalError // a panic, on its way to the connection
		if returned {
			code = codeOf(ctx, err)
		}
		l.record(ctx, req, start, code, err)
	}()
	res, err = l.next.Handle(ctx, req)
	returned = true
	return res, err
}

// record writes the record of one call; req's views are still valid.
func (l *logging) record(ctx context.Context, req *router.Request, start time.Time, code codec.Code, err error) {
	now := time.Now()
	r := slog.NewRecord(now, l.opts.Level, l.opts.Message, 0)
	r.AddAttrs(slog.String("method", req.Method))
	if req.ID != nil {
		r.AddAttrs(slog.String("id", string(req.ID)))
	}
	r.AddAttrs(slog.Duration("duration", now.Sub(start)), slog.Int("code", int(code)))
	if e, ok := errors.AsType[*codec.Error](err); ok {
		r.AddAttrs(slog.String("error", e.Message))
	} else if e, ok := errors.AsType[codec.ErrCoder](err); ok {
		r.AddAttrs(slog.String("error", e.Error()))
	}
	if l.opts.MaxParamBytes > 0 && req.Params != nil && l.log.Enabled(ctx, slog.LevelDebug) {
		r.AddAttrs(slog.String("params", shownParams(req.Params, l.opts.MaxParamBytes)))
	}
	_ = l.log.Handler().Handle(ctx, r) // a logger's failure is not the call's
}

// codeOf returns the code the connection answers err with (conn's
// rpcError): 0 for nil.
func codeOf(ctx context.Context, err error) codec.Code {
	if err == nil {
		return 0
	}
	if e, ok := errors.AsType[*codec.Error](err); ok {
		return e.Code
	}
	if e, ok := errors.AsType[codec.ErrCoder](err); ok {
		return e.ErrCode()
	}
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return codec.CodeRequestTimeout
	case errors.Is(err, context.Canceled) && ctx.Err() != nil:
		return codec.CodeCancelled
	}
	return codec.CodeInternalError
}

// redacted replaces the value of _meta.authorization in logged params.
const redacted = `"REDACTED"`

// shownParams returns params as a log shows them: _meta.authorization's
// value redacted, then cut to at most max bytes (plus "…") at a character
// boundary.
func shownParams(params []byte, max int) string {
	if start, end, ok := metaSpan(params, "authorization"); ok {
		p := make([]byte, 0, len(params)-(end-start)+len(redacted))
		p = append(append(append(p, params[:start]...), redacted...), params[end:]...)
		params = p
	}
	if len(params) <= max {
		return string(params)
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(params[cut]) {
		cut--
	}
	return string(params[:cut]) + "…"
}
