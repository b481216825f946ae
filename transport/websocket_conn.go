package transport

import (
	"context"
	"errors"
	"io"
	"net"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/mcpwire/mcpwire/codec"
)

// closeHandshakeTimeout bounds the WebSocket closing handshake: past it,
// the connection underneath is closed without the peer's close frame.
const closeHandshakeTimeout = time.Second

// keepBuf is the largest read buffer a connection keeps between messages:
// one grown for a larger message is dropped before the next read.
const keepBuf = 64 << 10

// wsConn is one WebSocket connection as a conn.MessageConn: one JSON-RPC
// message or batch per WebSocket message, with ping/pong keep-alive. The
// session reads it from one goroutine and writes it from one at a time.
//
// Reads go through coder/websocket's Reader with no context (a read
// context's expiry would close the connection), into a buffer of the
// connection's own, within max bytes: a longer message is drained, not
// kept, and reported as a *codec.FrameError, which the session answers
// -32600 before reading on. coder/websocket's own limit is off. It has no
// read deadline: Shutdown leaves its reader blocked, and closing the
// connection (the closing handshake) ends it. It has no write deadline
// either: a write the peer does not drain holds the write lock the
// keep-alive's ping needs, so the ping fails and the connection is cut.
type wsConn struct {
	ws  *websocket.Conn
	nc  net.Conn // underneath ws, when known: closing it cuts a stuck handshake
	max int
	buf []byte // the last message read: valid until the next ReadMessage

	once     sync.Once
	done     chan struct{} // closed by Close: stops the keep-alive
	pingDone chan struct{} // closed when the keep-alive has returned
}

// newWSConn wraps ws, reading messages of up to max bytes, and starts its
// keep-alive: a ping every interval (none when interval <= 0), each to be
// answered within timeout.
func newWSConn(ws *websocket.Conn, nc net.Conn, max int, interval, timeout time.Duration) *wsConn {
	ws.SetReadLimit(-1) // ReadMessage enforces max itself, and reads on
	c := &wsConn{ws: ws, nc: nc, max: max, done: make(chan struct{}), pingDone: make(chan struct{})}
	if interval > 0 {
		go c.keepAlive(interval, timeout)
	} else {
		close(c.pingDone)
	}
	return c
}

// ReadMessage returns the next text or binary message.
func (c *wsConn) ReadMessage() ([]byte, error) {
	if cap(c.buf) > keepBuf {
		c.buf = nil
	}
	_, r, err := c.ws.Reader(context.Background())
	if err != nil {
		return nil, readError(err)
	}
	c.buf, err = codec.ReadBody(r, c.max, c.buf)
	var fe *codec.FrameError
	if errors.As(err, &fe) {
		// Skip the rest of the message, never holding it.
		if _, derr := io.Copy(io.Discard, r); derr != nil {
			return nil, readError(derr)
		}
		return nil, err
	}
	if err != nil {
		return nil, readError(err)
	}
	return c.buf, nil
}

// readError turns the peer's normal closing into io.EOF, the clean end of
// a session.
func readError(err error) error {
	switch websocket.CloseStatus(err) {
	case websocket.StatusNormalClosure, websocket.StatusGoingAway:
		return io.EOF
	}
	return err
}

// WriteMessage sends msg as one text message.
func (c *wsConn) WriteMessage(msg []byte) error {
	return c.ws.Write(context.Background(), websocket.MessageText, msg)
}

// Close runs the closing handshake (normal closure), within
// closeHandshakeTimeout when the connection underneath is known, and
// stops the keep-alive.
func (c *wsConn) Close() error {
	var err error
	c.once.Do(func() {
		close(c.done)
		if c.nc != nil {
			t := time.AfterFunc(closeHandshakeTimeout, func() { c.nc.Close() })
			defer t.Stop()
		}
		err = c.ws.Close(websocket.StatusNormalClosure, "")
		if errors.Is(err, net.ErrClosed) {
			err = nil
		}
		<-c.pingDone
	})
	return err
}

// keepAlive pings the peer every interval until Close; a ping not
// answered within timeout (or that cannot be sent) cuts the connection,
// which ends the session reading it.
func (c *wsConn) keepAlive(interval, timeout time.Duration) {
	defer close(c.pingDone)
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-c.done:
			return
		case <-t.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		err := c.ws.Ping(ctx)
		cancel()
		if err != nil {
			select {
			case <-c.done: // Close is under way: let its handshake finish
			default:
				c.cut()
			}
			return
		}
	}
}

// cut closes the connection without a handshake: the peer is gone or
// does not answer.
func (c *wsConn) cut() {
	if c.nc != nil {
		c.nc.Close() // first: it unblocks a handshake under way
	}
	c.ws.CloseNow()
}
