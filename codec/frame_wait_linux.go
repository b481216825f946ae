package codec

import (
	"io"
	"net"
	"syscall"
	"unsafe"
)

// socketWaiter returns a ReadWaiter for r if it is a TCP or Unix stream
// socket, else nil.
func socketWaiter(r io.Reader) ReadWaiter {
	var sc syscall.Conn
	switch c := r.(type) {
	case *net.TCPConn:
		sc = c
	case *net.UnixConn:
		sc = c
	default:
		return nil
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	w := &peekWaiter{Reader: r, rc: rc}
	w.ready = w.peek // one func value, made once: WaitRead does not allocate
	return w
}

// peekWaiter waits on a socket with the runtime's poller: ready peeks at
// one byte without taking it (MSG_PEEK), and the poller waits for the
// socket to become readable whenever there is none. The peek is a fresh
// look each time, so a byte that came before the wait is seen.
type peekWaiter struct {
	io.Reader
	rc    syscall.RawConn
	ready func(fd uintptr) bool
	one   [1]byte
}

// WaitRead returns nil once a byte, the end of the stream or an error is
// ready.
func (w *peekWaiter) WaitRead() error { return w.rc.Read(w.ready) }

// peek reports whether a read on fd would not block.
func (w *peekWaiter) peek(fd uintptr) bool {
	for {
		_, _, errno := syscall.Syscall6(syscall.SYS_RECVFROM, fd, uintptr(unsafe.Pointer(&w.one[0])), 1,
			syscall.MSG_PEEK|syscall.MSG_DONTWAIT, 0, 0)
		switch errno {
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			return false // nothing yet: the poller waits
		}
		return true // a byte, the end (0 bytes), or an error the read will report
	}
}
