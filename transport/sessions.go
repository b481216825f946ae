package transport

import (
	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/internal/session"
)

// sessions are the live sessions of a server or handler, each its own
// key: Server's, WebSocketHandler's, and those of the POSTs an HTTP
// handler is serving.
type sessions = session.Registry[*conn.Conn, *conn.Conn]

// track adds c to live, unless Shutdown or Close began (session.ErrClosed:
// c is not added, and the caller ends it). A session that ended meanwhile
// is removed again: its OnClose, which removes it (forgetOnClose), may
// have run before it was added, and Done is closed before OnClose runs.
func track(live *sessions, c *conn.Conn) error {
	if err := live.Add(c, c, nil); err != nil {
		return err
	}
	select {
	case <-c.Done():
		live.Remove(c, c)
	default:
	}
	return nil
}

// forgetOnClose returns an OnClose that removes the session from live,
// runs then (if set), and calls onClose (if set). The session is removed
// first, so that an onClose may call its server's Shutdown or Close, which
// wait for every session to be removed.
func forgetOnClose(live *sessions, then func(), onClose func(*conn.Conn, error)) func(*conn.Conn, error) {
	return func(c *conn.Conn, err error) {
		live.Remove(c, c)
		if then != nil {
			then()
		}
		if onClose != nil {
			onClose(c, err)
		}
	}
}
