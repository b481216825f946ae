package conn

import (
	"context"
	"sync"

	"github.com/mcpwire/mcpwire/codec"
)

// ServeBody serves one complete body — a message or a batch — that a
// transport received whole (an HTTP POST, say), on the calling goroutine:
// no read buffer, no reader goroutine. It gives reply the answer once it is
// ready: a response, or a batch's array; reply is not called when no
// answer is due (notifications and responses only). reply may run on
// another goroutine, but only before ServeBody returns; msg is valid only
// during the call.
//
// ServeBody returns once the answer is settled, or with ctx.Err() when ctx
// is done first: the handlers go on, and their answer is dropped. body may
// be reused once it returns. It is safe to call from many goroutines at
// once; the session's options, limits and batch policy apply, and
// handlers see the session in their context.
func (c *Conn) ServeBody(ctx context.Context, body []byte, reply func(msg []byte)) error {
	r := &bodyReply{fn: reply, done: make(chan struct{})}
	if len(body) > c.opts.Limits.MaxFrameBytes {
		c.answer(replyTo{body: r}, errorResponse(nil, errBodyTooLarge), false)
	} else {
		s := getScanner(c.opts.Limits)
		c.serveFrame(body, s, r, false)
		putScanner(c.opts.Limits, s)
	}
	select {
	case <-r.done:
		return nil
	case <-ctx.Done():
		r.mu.Lock()
		r.fn = nil
		r.mu.Unlock()
		return ctx.Err()
	}
}

var errBodyTooLarge = (&codec.FrameError{Err: codec.ErrFrameTooLarge}).RPCError()

// bodyReply receives the one answer to a ServeBody call.
type bodyReply struct {
	mu   sync.Mutex
	fn   func([]byte) // nil once ServeBody has given up waiting
	done chan struct{}
}

// put delivers the answer (nil: none is due). Every body is settled exactly
// once.
func (r *bodyReply) put(msg []byte) {
	r.mu.Lock()
	if r.fn != nil && msg != nil {
		r.fn(msg)
	}
	r.mu.Unlock()
	close(r.done)
}

// Scanners for ServeBody, shared by every session with the same limits.
var scanners sync.Map // codec.Limits → *sync.Pool of *codec.Scanner

func getScanner(l *codec.Limits) *codec.Scanner {
	if p, ok := scanners.Load(*l); ok {
		if s, ok := p.(*sync.Pool).Get().(*codec.Scanner); ok {
			return s
		}
	}
	return codec.NewScanner(l)
}

func putScanner(l *codec.Limits, s *codec.Scanner) {
	p, ok := scanners.Load(*l)
	if !ok {
		p, _ = scanners.LoadOrStore(*l, new(sync.Pool))
	}
	p.(*sync.Pool).Put(s)
}
