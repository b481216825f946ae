package main

import (
	"context"
	"errors"
	"net"
	"sync/atomic"
	"syscall"
)

// go-sql-driver/mysql reads a row of a result whole, however long: a
// row of fifteen REPEAT('x', 16000000) is 240 MB in the server's memory
// and then in this one's (the server bounds one value by its
// max_allowed_packet, not a row). So the read-only pool's sockets are
// read through boundedConn, which follows the protocol's packets (a
// 3-byte length and a sequence number; a packet of 2²⁴-1 bytes goes on
// in the next) and fails the read once one logical packet — a row —
// would pass maxMessageBytes, from the header that says so, before its
// body is read. The driver then closes the connection, which ends the
// statement in the server too.
//
// It sees the packets only on a plain connection: with compression
// (turned off in mysqlConfig) or TLS (tls=… in the DSN, which wraps this
// socket) the bytes it sees are not packets, and rows go unbounded.

// errRowTooLong is boundedConn's read error.
var errRowTooLong = errors.New("a packet of the server's is longer than the bound")

// rowsRefused counts the rows boundedConn refused, for dbError to tell
// a statement's connection closed for that (the driver's error says
// only "invalid connection").
var rowsRefused atomic.Int64

// refusedKey is the context key of the count of rows refused before a
// statement.
type refusedKey struct{}

// noteRefusals notes in ctx, a statement's, how many rows were refused
// before it.
func noteRefusals(ctx context.Context) context.Context {
	return context.WithValue(ctx, refusedKey{}, rowsRefused.Load())
}

// refusedSince reports whether a row was refused since noteRefusals
// made ctx: with the driver's "invalid connection", most likely the
// statement's own. (A statement whose connection broke for another
// reason while another's row was refused is told of the bound too.)
func refusedSince(ctx context.Context) bool {
	n, ok := ctx.Value(refusedKey{}).(int64)
	return ok && rowsRefused.Load() != n
}

// dialBounded is mysql.Config.DialFunc: a socket read through
// boundedConn.
func dialBounded(ctx context.Context, network, addr string) (net.Conn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	return &boundedConn{Conn: c}, nil
}

// boundedConn is a socket whose reads follow the MySQL packets the
// server sends. Not safe for concurrent reads (the driver reads from one
// goroutine).
type boundedConn struct {
	net.Conn
	hdr   [4]byte // the header being read
	nhdr  int     // bytes of hdr read
	left  int     // bytes of the current packet's body still to come
	total int     // bytes of the current logical packet so far
	more  bool    // the current packet is full: the logical one goes on
	err   error   // sticky
}

// maxPacket is the length of a full packet, which the next one continues.
const maxPacket = 1<<24 - 1

// Read reads from the socket and fails, for good, once a logical packet
// would pass maxMessageBytes.
func (c *boundedConn) Read(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.Conn.Read(p)
	if c.follow(p[:n]) {
		c.err = errRowTooLong
		rowsRefused.Add(1)
		return 0, c.err
	}
	return n, err
}

// follow follows the packets in b, the next bytes the server sent; it
// reports whether a logical packet passes maxMessageBytes.
func (c *boundedConn) follow(b []byte) bool {
	for len(b) > 0 {
		if c.left > 0 {
			k := min(c.left, len(b))
			c.left -= k
			b = b[k:]
			continue
		}
		k := copy(c.hdr[c.nhdr:], b)
		c.nhdr += k
		b = b[k:]
		if c.nhdr < len(c.hdr) {
			return false
		}
		c.nhdr = 0
		size := int(c.hdr[0]) | int(c.hdr[1])<<8 | int(c.hdr[2])<<16
		if !c.more {
			c.total = 0
		}
		c.total += size
		c.more = size == maxPacket
		if c.total > maxMessageBytes {
			return true
		}
		c.left = size
	}
	return false
}

// SyscallConn is the socket's, for the driver's check of a connection
// before it reuses it (which reads nothing when the socket is healthy).
func (c *boundedConn) SyscallConn() (syscall.RawConn, error) {
	sc, ok := c.Conn.(syscall.Conn)
	if !ok {
		return nil, errors.New("not a system socket")
	}
	return sc.SyscallConn()
}
