// Package pipenet is an in-memory network for tests: a net.Listener whose
// connections are net.Pipe pairs. A server and its clients on it can run
// in a testing/synctest bubble, where real sockets cannot (their waits
// are not durably blocking), so that timing in the test is virtual and
// exact however loaded the machine. Its Listener also serves a server
// the connections another one hands over (Give).
package pipenet

import (
	"context"
	"net"
	"sync"
)

// Listener is a net.Listener whose connections are made by Dial. It is
// safe for concurrent use.
type Listener struct {
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

// Listen returns a new Listener.
func Listen() *Listener {
	return &Listener{conns: make(chan net.Conn), done: make(chan struct{})}
}

// Accept waits for the next Dial and returns the server's end of its
// pipe; after Close it returns net.ErrClosed.
func (l *Listener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

// Close makes Accept and Dial fail with net.ErrClosed. Connections
// already made stay open. It always returns nil.
func (l *Listener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

// Addr returns Address: the listener has no network address.
func (l *Listener) Addr() net.Addr { return Address }

// Dial has the signature of net.Dialer.DialContext (and so of
// http.Transport.DialContext) and ignores network and address: it
// waits until Accept takes the server's end of a new pipe and returns the
// client's. It fails with net.ErrClosed once the listener is closed, and
// with ctx's error if ctx ends first.
func (l *Listener) Dial(ctx context.Context, _, _ string) (net.Conn, error) {
	client, server := net.Pipe()
	select {
	case l.conns <- server:
		return client, nil
	case <-l.done:
		client.Close()
		server.Close()
		return nil, net.ErrClosed
	case <-ctx.Done():
		client.Close()
		server.Close()
		return nil, ctx.Err()
	}
}

// Give waits until Accept takes c, a connection made elsewhere (one a
// front server hands over, say). It fails with net.ErrClosed once the
// listener is closed, leaving c to the caller.
func (l *Listener) Give(c net.Conn) error {
	select {
	case l.conns <- c:
		return nil
	case <-l.done:
		return net.ErrClosed
	}
}

// Address is the address of every Listener: network "pipe", address
// "pipe" (a valid URL host, so "http://pipe/" names a server on it).
var Address net.Addr = addr{}

type addr struct{}

func (addr) Network() string { return "pipe" }
func (addr) String() string  { return "pipe" }
