// Package dbserver starts real database servers for tests, from the
// machine's packages (Debian's postgresql and mariadb-server): each in a
// new temporary directory, listening on a Unix socket (PostgreSQL) or a
// free loopback port (MariaDB) and nowhere else, run as the unprivileged
// user nobody when the test runs as root (neither server runs as root).
// A Server is stopped by its pid.
package dbserver

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"strconv"
	"syscall"
	"time"
)

// ErrNotInstalled is returned when the server's programs are not on this
// machine.
var ErrNotInstalled = errors.New("not installed")

// Server is a running database server. Its fields are set by Start* and
// read only after.
type Server struct {
	// DSN is the superuser's DSN in the form sqlmcp's -dsn takes, with
	// DATABASE in place of the database's name (see DSNFor).
	DSN string
	// Password is the superuser's password (a secret tests look for in
	// what the server under test shows).
	Password string

	cmd  *exec.Cmd
	dir  string
	dsnf func(db string) string
	done chan struct{} // closed when the process has been reaped
	err  error         // its exit status, set before done closes
}

// DSNFor returns the superuser's DSN for the database db.
func (s *Server) DSNFor(db string) string { return s.dsnf(db) }

// Stop stops the server with sig, then SIGKILL after 15 seconds, waits
// for it to exit and removes its directory.
func (s *Server) Stop(sig syscall.Signal) error {
	defer os.RemoveAll(s.dir)
	_ = s.cmd.Process.Signal(sig)
	select {
	case <-s.done:
		return nil
	case <-time.After(15 * time.Second):
	}
	_ = s.cmd.Process.Kill()
	<-s.done
	return fmt.Errorf("%s did not stop on %v: killed", s.cmd.Path, sig)
}

// start starts the server's command and reaps it when it exits.
func (s *Server) start() error {
	if err := s.cmd.Start(); err != nil {
		return err
	}
	s.done = make(chan struct{})
	go func() {
		s.err = s.cmd.Wait()
		close(s.done)
	}()
	return nil
}

// tempDir makes a directory for a server, owned by the user it runs as.
func tempDir(prefix string, cred *syscall.Credential) (string, error) {
	dir, err := os.MkdirTemp("", prefix)
	if err != nil {
		return "", err
	}
	if cred != nil {
		if err := os.Chown(dir, int(cred.Uid), int(cred.Gid)); err != nil {
			os.RemoveAll(dir)
			return "", err
		}
	}
	return dir, nil
}

// credential is the user servers run as: nobody when this process is
// root, else nil (this process's own).
func credential() (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup("nobody")
	if err != nil {
		return nil, fmt.Errorf("running as root, and no user nobody to run the server as: %w", err)
	}
	uid, err1 := strconv.Atoi(u.Uid)
	gid, err2 := strconv.Atoi(u.Gid)
	if err := errors.Join(err1, err2); err != nil {
		return nil, err
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}

// command is a command run as cred, killed if this process dies.
func command(cred *syscall.Credential, dir, name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Pdeathsig: syscall.SIGKILL}
	return cmd
}

// run runs a setup command to its end, with its output in the error.
func run(cmd *exec.Cmd) error {
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s: %v\n%s", cmd.Path, err, out)
	}
	return nil
}

// waitReady calls ready until it succeeds, the server exits, or ctx is
// done.
func (s *Server) waitReady(ctx context.Context, log string, ready func(context.Context) error) error {
	for {
		err := ready(ctx)
		if err == nil {
			return nil
		}
		select {
		case <-s.done:
			b, _ := os.ReadFile(log)
			return fmt.Errorf("%s exited before it was ready (%v):\n%s", s.cmd.Path, s.err, b)
		case <-ctx.Done():
			b, _ := os.ReadFile(log)
			return fmt.Errorf("%s not ready: %v\n%s", s.cmd.Path, err, b)
		case <-time.After(100 * time.Millisecond):
		}
	}
}
