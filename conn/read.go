package conn

import (
	"errors"
	"io"
	"net"
	"os"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/router"
)

// reader is a connection's reading side and the state that only the
// reading goroutine touches: its scanner, the output it holds back, the
// request an inline handler is serving, the contexts of the requests it
// hands off. Its methods run on the reading goroutine only; a function
// that may run on any goroutine takes a *reader that is nil elsewhere
// (the answers of workers, timers, Cancel, Shutdown and ServeBody).
type reader struct {
	c       *Conn
	scan    *codec.Scanner
	held    codec.Buffer   // output held until it would block (reply.go)
	heldBox *codec.Buffer  // for giveSpare and takeSpare
	req     router.Request // the request an inline handler is serving
	ctxs    []reqCtx       // the next request contexts (a slab)
}

// loop reads and serves frames until end of stream, a fatal read error,
// or Shutdown or Close.
func (rd *reader) loop() {
	c := rd.c
	var why error
	defer func() {
		rd.flushHeld()
		close(c.readDone)
		if !c.stopping.Load() {
			// The peer ended the stream (or it broke): finish what was
			// received, then close.
			c.drainAndClose(why)
		}
	}()
	for {
		if !c.s.Buffered() {
			// About to block on a read: send what the reader held back,
			// and give large output buffers back while waiting.
			rd.unmark()
			if rd.flushHeld() != nil {
				return
			}
			rd.held.B = giveSpare(rd.held.B, &rd.heldBox)
			c.out.idle()
			if c.stopping.Load() {
				return
			}
		}
		frame, err := c.s.Next()
		if err != nil {
			if ce, ok := err.(*CallError); ok {
				c.calls.fail(ce.ID, func() error { return ce.Err })
				continue
			}
			var fe *codec.FrameError
			if errors.As(err, &fe) {
				c.opts.Logger.Debug("jsonrpc: bad frame", "err", err)
				c.answer(replyTo{}, errorResponse(nil, c.invalid(fe.RPCError())), rd)
				continue
			}
			switch {
			case errors.Is(err, io.EOF), c.stopping.Load():
			case errors.Is(err, errIdle):
				c.opts.Logger.Debug("jsonrpc: idle timeout: closing")
			case errors.Is(err, io.ErrUnexpectedEOF):
				c.opts.Logger.Debug("jsonrpc: stream ended inside a frame; the partial frame is dropped")
			case !isClosedErr(err):
				why = err
			}
			return
		}
		if rd.held.B == nil {
			rd.held.B = takeSpare(&rd.heldBox)
		}
		c.serveFrame(frame, rd.scan, nil, rd)
	}
}

// serveFrame serves every message of one frame: read by the reader (rd
// set, body nil) or given to ServeBody (body set, rd nil).
func (c *Conn) serveFrame(frame []byte, scan *codec.Scanner, body *bodyReply, rd *reader) {
	msgs, isBatch, err := scan.Scan(frame)
	to := replyTo{body: body}
	switch {
	case err != nil:
		c.opts.Logger.Debug("jsonrpc: parse error", "err", err)
		c.answer(to, errorResponse(nil, c.invalid(codec.ErrParse)), rd)
	case isBatch && c.refuseBatch.Load():
		c.answer(to, errorResponse(nil, c.invalid(errBatchRefused)), rd)
	case isBatch:
		c.serveBatch(frame, msgs, body, rd)
	default:
		var ref *frameRef
		m := &msgs[0]
		if m.JSONRPC1 {
			to.slot = v1Slot
			c.counted1(m)
		}
		c.serveMessage(frame, m, to, rd, &ref)
		ref.release()
	}
}

// isClosedErr reports an error caused by closing the stream ourselves.
func isClosedErr(err error) bool {
	return errors.Is(err, net.ErrClosed) || errors.Is(err, os.ErrClosed) ||
		errors.Is(err, io.ErrClosedPipe) || errors.Is(err, os.ErrDeadlineExceeded)
}
