package conn

import (
	"errors"
	"io"
	"net"
	"os"

	"github.com/mcpwire/mcpwire/codec"
)

// readLoop owns the framer and the scanner. It ends on end of stream, on a
// fatal read error, or when Shutdown or Close stops it.
func (c *Conn) readLoop() {
	var why error
	defer func() {
		c.flushHeld()
		close(c.readDone)
		if !c.stopping.Load() {
			// The peer ended the stream (or it broke): finish what was
			// received, then close.
			c.drainAndClose(why)
		}
	}()
	for {
		if !c.framer.Buffered() {
			// About to block on a read: send what the reader held back.
			if c.flushHeld() != nil {
				return
			}
			if c.stopping.Load() {
				return
			}
		}
		frame, err := c.framer.Next()
		if err != nil {
			var fe *codec.FrameError
			if errors.As(err, &fe) {
				c.opts.Logger.Warn("jsonrpc: bad frame", "err", err)
				c.replyError(nil, fe.RPCError(), true)
				continue
			}
			if !errors.Is(err, io.EOF) && !c.stopping.Load() && !isClosedErr(err) {
				why = err
			}
			return
		}
		c.serveFrame(frame)
	}
}

// serveFrame dispatches every message of one frame.
func (c *Conn) serveFrame(frame []byte) {
	msgs, batch, err := c.scan.Scan(frame)
	if err != nil {
		c.opts.Logger.Debug("jsonrpc: parse error", "err", err)
		c.replyError(nil, codec.ErrParse, true)
		return
	}
	if batch {
		c.serveBatch(frame, msgs)
		return
	}
	m := &msgs[0]
	switch m.Kind {
	case codec.KindRequest, codec.KindNotification:
		var ref *frameRef
		c.dispatch(frame, m, nil, 0, &ref)
	case codec.KindResult, codec.KindError:
		c.calls.deliver(m, c.opts.Logger.Warn)
	case codec.KindInvalid:
		c.replyError(m.ID, m.Err, true)
	case codec.KindBadResponse:
		c.opts.Logger.Warn("jsonrpc: malformed response dropped", "err", m.Err)
	}
}

// replyError sends an error response right away (the reader's lazy path).
func (c *Conn) replyError(id []byte, e *codec.Error, lazy bool) {
	c.respond(nil, 0, c.errorResponse(id, e), lazy)
}

// isClosedErr reports an error caused by closing the stream ourselves.
func isClosedErr(err error) bool {
	return errors.Is(err, net.ErrClosed) || errors.Is(err, os.ErrClosed) ||
		errors.Is(err, io.ErrClosedPipe) || errors.Is(err, os.ErrDeadlineExceeded)
}
