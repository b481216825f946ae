package codec

import "io"

// A ReadWaiter is a reader that can wait until a Read would not block
// without reading anything: a socket. A built-in framer reading one holds
// no buffer at all while its stream is idle: it waits with WaitRead, then
// takes a pooled buffer and reads. A framer finds a ReadWaiter by a type
// assertion on its reader, or makes one for a TCP or Unix socket
// (WaitingReader).
type ReadWaiter interface {
	io.Reader
	// WaitRead returns nil when data, the end of the stream or an error is
	// ready to be read, or the error that ended the wait (a read
	// deadline, the socket closed), which the framer treats as a read's.
	WaitRead() error
}

// WaitingReader returns r as a ReadWaiter if it is one or can be made one
// (a *net.TCPConn or *net.UnixConn on Linux), else nil.
func WaitingReader(r io.Reader) ReadWaiter {
	if w, ok := r.(ReadWaiter); ok {
		return w
	}
	return socketWaiter(r)
}
