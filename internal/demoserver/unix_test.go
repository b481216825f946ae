package demoserver

import (
	"bufio"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/codec"
)

// TestDemoserver_restartsAfterKill9OnAUnixSocket: a server killed with
// SIGKILL leaves its socket file behind; the next one removes it and
// listens, and a third one started beside a live one is refused.
func TestDemoserver_restartsAfterKill9OnAUnixSocket(t *testing.T) {
	bin := build(t)
	sock := filepath.Join(t.TempDir(), "d.sock")
	first, _, _ := startListening(t, bin, "-listen", "unix://"+sock)
	if err := first.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	first.Wait()
	if _, err := os.Lstat(sock); err != nil {
		t.Fatalf("no stale socket after SIGKILL: %v", err)
	}

	second, addr, _ := startListening(t, bin, "-listen", "unix://"+sock)
	if addr != "unix://"+sock {
		t.Fatalf("listening on %q", addr)
	}
	nc, err := net.DialTimeout("unix", sock, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	nc.SetDeadline(time.Now().Add(10 * time.Second))
	c := &client{t: t, w: nc, br: bufio.NewReader(nc), framing: codec.Newline}
	c.send(`{"jsonrpc":"2.0","id":1,"method":"subtract","params":[42,23]}`)
	if got := c.recv(); !sameJSON(t, got, []byte(`{"jsonrpc":"2.0","id":1,"result":19}`)) {
		t.Fatalf("got %s", got)
	}
	nc.Close()

	out, err := exec.Command(bin, "-listen", "unix://"+sock).CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(string(out), "address in use") {
		t.Fatalf("a second server on a live socket: %v\n%s", err, out)
	}
	terminate(t, second, nil)
	if _, err := os.Lstat(sock); !os.IsNotExist(err) {
		t.Fatalf("socket file after a clean exit: %v", err)
	}
}
