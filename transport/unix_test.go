package transport_test

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpwire/mcpwire/transport"
)

// staleSocket leaves a socket file at path with nobody accepting on it, as
// a server killed with SIGKILL does.
func staleSocket(t *testing.T, path string) {
	t.Helper()
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	ln.Close()
	if _, err := net.Dial("unix", path); err == nil {
		t.Fatal("the stale socket still accepts")
	}
}

func TestListen_removesAStaleUnixSocket(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.sock")
	staleSocket(t, path)
	if _, err := net.Listen("unix", path); err == nil {
		t.Fatal("binding over a stale socket file succeeded without removing it")
	}
	ln, err := transport.Listen(context.Background(), "unix://"+path)
	if err != nil {
		t.Fatalf("Listen over a stale socket: %v", err)
	}
	defer ln.Close()
	c, err := net.Dial("unix", path)
	if err != nil {
		t.Fatalf("dial the new listener: %v", err)
	}
	c.Close()
}

func TestListen_refusesALiveUnixSocket(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.sock")
	live, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	accepted := make(chan error, 1)
	go func() {
		c, err := live.Accept() // the probe's dial
		if err == nil {
			c.Close()
		}
		accepted <- err
	}()
	if _, err := transport.Listen(context.Background(), "unix://"+path); !errors.Is(err, transport.ErrAddrInUse) {
		t.Fatalf("Listen on a live socket = %v, want ErrAddrInUse", err)
	}
	if err := <-accepted; err != nil {
		t.Fatal(err)
	}
	c, err := net.Dial("unix", path)
	if err != nil {
		t.Fatalf("the live socket was removed: %v", err)
	}
	c.Close()
}

func TestListen_leavesAFileThatIsNotASocket(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.sock")
	if err := os.WriteFile(path, []byte("keep me"), 0o600); err != nil {
		t.Fatal(err)
	}
	if ln, err := transport.Listen(context.Background(), "unix://"+path); err == nil {
		ln.Close()
		t.Fatal("Listen over a regular file succeeded")
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != "keep me" {
		t.Fatalf("the regular file was touched: %q %v", b, err)
	}
}
