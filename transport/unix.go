package transport

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"syscall"
	"time"
)

// ErrAddrInUse is returned by Listen for a Unix socket path on which a
// server accepts connections.
var ErrAddrInUse = errors.New("transport: address in use")

// staleDialTimeout bounds the dial that tells a live socket from a stale one.
const staleDialTimeout = time.Second

// removeStaleSocket removes the Unix socket file at path when nobody accepts
// on it any more: a server killed without closing its listener (kill -9)
// leaves the file behind, and binding the path again would fail with
// "address already in use". It removes nothing else: not a socket a dial
// reaches (that is ErrAddrInUse), not a socket it cannot judge (a dial that
// fails otherwise than with ECONNREFUSED), not a file of another kind (the
// bind then fails). Abstract sockets ("@name") have no file.
//
// Between the dial and the removal another server could bind the path; two
// servers started at the same moment on one path is a race this does not
// settle.
func removeStaleSocket(ctx context.Context, path string) error {
	if path == "" || strings.HasPrefix(path, "@") {
		return nil
	}
	fi, err := os.Lstat(path)
	if err != nil || fi.Mode().Type() != os.ModeSocket {
		return nil // nothing there, or not ours to judge: bind reports it
	}
	d := net.Dialer{Timeout: staleDialTimeout}
	c, err := d.DialContext(ctx, "unix", path)
	if err == nil {
		c.Close()
		return fmt.Errorf("%w: a server accepts on unix://%s", ErrAddrInUse, path)
	}
	if !errors.Is(err, syscall.ECONNREFUSED) {
		return nil
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("transport: removing stale socket: %w", err)
	}
	return nil
}
