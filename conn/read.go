package conn

import (
	"errors"
	"io"
	"net"
	"os"

	"github.com/mcpwire/mcpwire/codec"
)

// readLoop owns the stream's reading side, the reader's scanner, its
// inline request and its held output. It ends on end of stream, on a fatal
// read error, or when Shutdown or Close stops it; or at once, leaving all
// that to the goroutine that took the reading over, when a handler it ran
// was deposed (lead.go).
func (c *Conn) readLoop() {
	var why error
	deposed := false
	defer func() {
		if deposed {
			return // not the reader any more
		}
		c.flushHeld()
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
			if c.flushHeld() != nil {
				return
			}
			c.held.B = giveSpare(c.held.B, &c.heldBox)
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
				c.answer(replyTo{}, errorResponse(nil, c.invalid(fe.RPCError())), true)
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
		if c.held.B == nil {
			c.held.B = takeSpare(&c.heldBox)
		}
		if deposed = c.serveFrame(frame, c.scan, nil, true); deposed {
			return
		}
	}
}

// serveFrame serves every message of one frame: read by the reader
// (reader set, body nil) or given to ServeBody (body set). It reports
// whether the reader was deposed (see serveMessage).
func (c *Conn) serveFrame(frame []byte, scan *codec.Scanner, body *bodyReply, reader bool) (deposed bool) {
	msgs, isBatch, err := scan.Scan(frame)
	to := replyTo{body: body}
	switch {
	case err != nil:
		c.opts.Logger.Debug("jsonrpc: parse error", "err", err)
		c.answer(to, errorResponse(nil, c.invalid(codec.ErrParse)), reader)
	case isBatch && c.refuseBatch.Load():
		c.answer(to, errorResponse(nil, c.invalid(errBatchRefused)), reader)
	case isBatch:
		c.serveBatch(frame, msgs, body, reader)
	default:
		var ref *frameRef
		deposed = c.serveMessage(frame, &msgs[0], to, reader, &ref)
		ref.release()
	}
	return deposed
}

// isClosedErr reports an error caused by closing the stream ourselves.
func isClosedErr(err error) bool {
	return errors.Is(err, net.ErrClosed) || errors.Is(err, os.ErrClosed) ||
		errors.Is(err, io.ErrClosedPipe) || errors.Is(err, os.ErrDeadlineExceeded)
}
