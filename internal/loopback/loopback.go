// Package loopback gives tests the two ends of a loopback TCP connection:
// a socket, with the kernel's buffers both ways, as in production.
package loopback

import (
	"net"
	"testing"
)

// Pair returns the two ends of a TCP connection over 127.0.0.1, both
// closed when the test ends (closing one sooner is fine).
func Pair(t testing.TB) (client, server net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	client, err = net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	if server, err = ln.Accept(); err != nil {
		client.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close(); server.Close() })
	return client, server
}
