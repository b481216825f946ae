package codec

import (
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/mcpwire/mcpwire/internal/loopback"
)

// TestWaitingReader_sockets: TCP and Unix sockets wait with no buffer;
// pipes, in memory or not, do not.
func TestWaitingReader_sockets(t *testing.T) {
	_, tcp := loopback.Pair(t)
	if WaitingReader(tcp) == nil {
		t.Error("TCP: no waiter")
	}
	ln, err := net.Listen("unix", filepath.Join(t.TempDir(), "s"))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	uc, err := net.Dial("unix", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer uc.Close()
	if WaitingReader(uc) == nil {
		t.Error("Unix: no waiter")
	}
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	defer pw.Close()
	for _, r := range []io.Reader{a, pr} {
		if w := WaitingReader(r); w != nil {
			t.Errorf("%T: waiter %T", r, w)
		}
	}
}

// TestFramer_overTCP: a framer over a socket reads frames that come after
// it waits and frames that came before (the peek looks afresh, so bytes
// the last read left behind are not missed), gives up at its read
// deadline, and ends at the peer's close.
func TestFramer_overTCP(t *testing.T) {
	client, server := loopback.Pair(t)
	fr := NewFramer(server, Newline, nil)
	next := func(want string) {
		t.Helper()
		server.SetReadDeadline(time.Now().Add(10 * time.Second)) // a hang fails, not stalls
		if got, err := fr.Next(); err != nil || string(got) != want {
			t.Fatalf("Next: %q, %v; want %q", got, err, want)
		}
	}
	write := func(s string) {
		t.Helper()
		if _, err := io.WriteString(client, s); err != nil {
			t.Fatal(err)
		}
	}
	// The waiter's peek reports each time it finds the socket empty, so
	// that a frame is written only once the framer waits for it.
	waiting := make(chan struct{}, 1)
	pw := fr.(*newlineFramer).waiter.(*peekWaiter)
	peek := pw.ready
	pw.ready = func(fd uintptr) bool {
		ready := peek(fd)
		if !ready {
			select {
			case waiting <- struct{}{}:
			default:
			}
		}
		return ready
	}
	write("{\"a\":1}\n")
	next(`{"a":1}`)
	wrote := make(chan error, 1)
	go func() {
		select {
		case <-waiting:
			_, err := io.WriteString(client, "{\"b\":2}\n")
			wrote <- err
		case <-time.After(5 * time.Second): // before next's read deadline
			wrote <- errors.New("the framer never waited on the empty socket")
		}
	}()
	server.SetReadDeadline(time.Now().Add(10 * time.Second))
	got, err := fr.Next()
	if werr := <-wrote; werr != nil {
		t.Fatal(werr)
	}
	if err != nil || string(got) != `{"b":2}` { // waited for
		t.Fatalf("Next: %q, %v; want %q", got, err, `{"b":2}`)
	}
	write("{\"c\":3}\n")
	write("{\"d\":4}\n")
	waitQueued(t, server.(syscall.Conn), 2*len("{\"c\":3}\n")) // both are in the socket before the framer looks
	next(`{"c":3}`)
	next(`{"d":4}`)

	server.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
	if _, err := fr.Next(); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("past the deadline: %v", err)
	}
	client2, server2 := loopback.Pair(t)
	fr2 := NewFramer(server2, Newline, nil)
	io.WriteString(client2, "[]\n")
	client2.Close()
	if got, err := fr2.Next(); err != nil || string(got) != "[]" {
		t.Fatalf("before the close: %q, %v", got, err)
	}
	if _, err := fr2.Next(); err != io.EOF {
		t.Fatalf("after the close: %v", err)
	}
}

// TestWaitRead_allocs: waiting on a socket that has data costs no
// allocation.
func TestWaitRead_allocs(t *testing.T) {
	client, server := loopback.Pair(t)
	io.WriteString(client, "x")
	w := WaitingReader(server)
	if allocs := testing.AllocsPerRun(100, func() {
		if err := w.WaitRead(); err != nil {
			t.Fatal(err)
		}
	}); allocs != 0 {
		t.Errorf("%v allocations per wait", allocs)
	}
}

// waitQueued waits until at least n bytes are queued for reading on c.
func waitQueued(t *testing.T, c syscall.Conn, n int) {
	t.Helper()
	rc, err := c.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var queued int32
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		var errno syscall.Errno
		if err := rc.Control(func(fd uintptr) {
			_, _, errno = syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TIOCINQ, uintptr(unsafe.Pointer(&queued)))
		}); err != nil || errno != 0 {
			t.Fatalf("TIOCINQ: %v, %v", err, errno)
		}
		if int(queued) >= n {
			return
		}
	}
	t.Fatalf("%d bytes queued after 10s, want %d", queued, n)
}
