// Package redistest runs a real Redis (or Valkey) server for tests: the
// Debian package's redis-server, started on a free loopback port in a
// temporary directory, killed and removed when the test ends. A test
// that cannot start one is skipped, or fails when the environment says
// MCPWIRE_REDIS=required (as the test command does). MCPWIRE_REDIS_SERVER
// names another server binary (valkey-server, say).
package redistest

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/internal/testproc"
)

// Server is a redis-server started by Start. Safe for concurrent use.
type Server struct {
	t          testing.TB
	bin        string
	dir        string
	port       int
	persistent bool // StartPersistent's: an append-only file

	mu   sync.Mutex
	cmd  *exec.Cmd
	logs *testproc.LockedBuffer
}

// Binary returns the server binary the tests use (MCPWIRE_REDIS_SERVER,
// else redis-server on the PATH), or skips the test without one (fails
// it with MCPWIRE_REDIS=required).
func Binary(t testing.TB) string {
	t.Helper()
	name := os.Getenv("MCPWIRE_REDIS_SERVER")
	if name == "" {
		name = "redis-server"
	}
	bin, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("MCPWIRE_REDIS") == "required" {
			t.Fatalf("MCPWIRE_REDIS=required but: %v", err)
		}
		t.Skipf("no %s (Debian package redis-server); MCPWIRE_REDIS=required makes this a failure", name)
	}
	return bin
}

// Start starts a server with no persistence on a free loopback port and
// stops it (SIGKILL) when the test ends.
func Start(t testing.TB) *Server {
	t.Helper()
	s := &Server{t: t, bin: Binary(t), dir: t.TempDir(), port: freePort(t)}
	t.Cleanup(s.Kill)
	s.Restart()
	return s
}

// StartPersistent is Start for a server that keeps what it holds across
// Kill and Restart, as a production Redis with an append-only file does:
// every write is on disk before it is answered (appendfsync always).
func StartPersistent(t testing.TB) *Server {
	t.Helper()
	s := &Server{t: t, bin: Binary(t), dir: t.TempDir(), port: freePort(t), persistent: true}
	t.Cleanup(s.Kill)
	s.Restart()
	return s
}

// Addr is the server's host:port.
func (s *Server) Addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port)) }

// URL is the server's address as a redis:// URL of database 0.
func (s *Server) URL() string { return "redis://" + s.Addr() + "/0" }

// Kill ends the server with SIGKILL (no clean shutdown) and waits for it;
// what it held is lost. Killing a stopped server does nothing.
func (s *Server) Kill() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Kill()
	_ = s.cmd.Wait()
	s.cmd = nil
}

// Restart starts the server again on the same port (after Kill; at once
// if it is running) and returns once it answers PING.
func (s *Server) Restart() {
	s.t.Helper()
	s.Kill()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.logs = &testproc.LockedBuffer{}
	aof := []string{"--appendonly", "no"}
	if s.persistent {
		aof = []string{"--appendonly", "yes", "--appendfsync", "always"}
	}
	cmd := exec.Command(s.bin, append([]string{
		"--port", strconv.Itoa(s.port), "--bind", "127.0.0.1",
		"--dir", s.dir, "--save", "",
		"--protected-mode", "yes", "--daemonize", "no"}, aof...)...)
	cmd.Stdout, cmd.Stderr = s.logs, s.logs
	if err := cmd.Start(); err != nil {
		s.t.Fatalf("redistest: %v", err)
	}
	s.cmd = cmd
	deadline := time.Now().Add(10 * time.Second)
	for !ping(s.Addr()) {
		if time.Now().After(deadline) {
			s.t.Fatalf("redistest: %s does not answer on %s; it logged:\n%s", s.bin, s.Addr(), s.logs.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// ping reports whether a server answers PING at addr.
func ping(addr string) bool {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	c, err := (&net.Dialer{}).DialContext(ctx, "tcp", addr)
	if err != nil {
		return false
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(time.Second))
	if _, err := fmt.Fprint(c, "PING\r\n"); err != nil {
		return false
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	return err == nil && line == "+PONG\r\n"
}

// freePort returns a loopback TCP port nobody listens on now.
func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("redistest: %v", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// Commands returns how many times the server has run each command since
// it started (INFO commandstats: "get" → 12), and under "" the sum of
// them all but INFO's, so that the difference of two readings counts
// what ran in between, the readings left out.
func (s *Server) Commands() (map[string]int64, error) {
	c, err := net.DialTimeout("tcp", s.Addr(), time.Second)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := fmt.Fprint(c, "INFO commandstats\r\n"); err != nil {
		return nil, err
	}
	r := bufio.NewReader(c)
	head, err := r.ReadString('\n')
	if err != nil {
		return nil, err
	}
	if len(head) < 3 || head[0] != '$' {
		return nil, fmt.Errorf("redistest: INFO answered %q", head)
	}
	n, err := strconv.Atoi(head[1 : len(head)-2])
	if err != nil {
		return nil, fmt.Errorf("redistest: INFO answered %q", head)
	}
	body := make([]byte, n+2)
	if _, err := io.ReadFull(r, body); err != nil {
		return nil, err
	}
	return parseCommandStats(string(body)), nil
}

// parseCommandStats reads INFO commandstats' lines,
// "cmdstat_get:calls=12,usec=…".
func parseCommandStats(info string) map[string]int64 {
	counts := map[string]int64{}
	for _, line := range strings.Split(info, "\r\n") {
		name, rest, ok := strings.Cut(strings.TrimPrefix(line, "cmdstat_"), ":calls=")
		if !ok || len(name) == len(line) {
			continue
		}
		calls, _, _ := strings.Cut(rest, ",")
		n, err := strconv.ParseInt(calls, 10, 64)
		if err != nil {
			continue
		}
		counts[name] += n
		if name != "info" {
			counts[""] += n
		}
	}
	return counts
}
