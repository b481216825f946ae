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
				c.opts.Logger.Debug("jsonrpc: bad frame", "err", err)
				c.replyError(fe.RPCError())
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
		c.replyError(codec.ErrParse)
		return
	}
	if batch {
		c.serveBatch(frame, msgs)
		return
	}
	var ref *frameRef
	c.serveMessage(frame, &msgs[0], nil, 0, &ref)
	ref.release()
}

// serveMessage serves one message of frame, alone (b nil) or as element
// slot of batch b. Problems caused by the peer are logged at debug level
// only: the peer is told, and a hostile one must not flood the log.
func (c *Conn) serveMessage(frame []byte, m *codec.Message, b *batch, slot int, ref **frameRef) {
	switch m.Kind {
	case codec.KindRequest, codec.KindNotification:
		c.dispatch(frame, m, b, slot, ref)
	case codec.KindInvalid:
		c.respond(b, slot, c.errorResponse(m.ID, m.Err), true)
	case codec.KindResult, codec.KindError:
		c.calls.deliver(m, c.opts.Logger)
		c.respond(b, slot, nil, true)
	default:
		c.opts.Logger.Debug("jsonrpc: malformed response dropped", "err", m.Err)
		c.respond(b, slot, nil, true)
	}
}

// replyError answers, from the reader, a frame that could not be read as
// messages: the error carries id null.
func (c *Conn) replyError(e *codec.Error) {
	c.respond(nil, 0, c.errorResponse(nil, e), true)
}

// isClosedErr reports an error caused by closing the stream ourselves.
func isClosedErr(err error) bool {
	return errors.Is(err, net.ErrClosed) || errors.Is(err, os.ErrClosed) ||
		errors.Is(err, io.ErrClosedPipe) || errors.Is(err, os.ErrDeadlineExceeded)
}
