package dbserver

import (
	"context"
	"crypto/rand"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5"
)

// postgresBin returns the directory of initdb and postgres: Debian's
// newest /usr/lib/postgresql/*/bin, else where PATH has them.
func postgresBin() (string, error) {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	// Newest first: a longer version number is a larger one.
	slices.SortFunc(dirs, func(a, b string) int {
		if len(a) != len(b) {
			return len(b) - len(a)
		}
		return strings.Compare(b, a)
	})
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "postgres")); err == nil {
			return d, nil
		}
	}
	if p, err := exec.LookPath("postgres"); err == nil {
		return filepath.Dir(p), nil
	}
	return "", fmt.Errorf("postgres: %w (apt-get install postgresql)", ErrNotInstalled)
}

// StartPostgres initialises a cluster in a new temporary directory and
// starts PostgreSQL on a Unix socket in it (no TCP), with password
// authentication (SCRAM) for the superuser postgres.
func StartPostgres(ctx context.Context) (*Server, error) {
	bin, err := postgresBin()
	if err != nil {
		return nil, err
	}
	cred, err := credential()
	if err != nil {
		return nil, err
	}
	dir, err := tempDir("sqlmcp-pg-", cred)
	if err != nil {
		return nil, err
	}
	s := &Server{dir: dir, Password: rand.Text()}
	fail := func(err error) (*Server, error) {
		os.RemoveAll(dir)
		return nil, err
	}
	pwfile := filepath.Join(dir, "pwfile")
	if err := os.WriteFile(pwfile, []byte(s.Password+"\n"), 0o600); err != nil {
		return fail(err)
	}
	if cred != nil {
		if err := os.Chown(pwfile, int(cred.Uid), int(cred.Gid)); err != nil {
			return fail(err)
		}
	}
	data := filepath.Join(dir, "data")
	err = run(command(cred, dir, filepath.Join(bin, "initdb"), "-D", data, "-U", "postgres",
		"--auth=scram-sha-256", "--pwfile="+pwfile, "-E", "UTF8", "--locale=C", "--no-sync", "--no-instructions"))
	if err != nil {
		return fail(err)
	}
	log := filepath.Join(dir, "postgres.log")
	lf, err := os.Create(log)
	if err != nil {
		return fail(err)
	}
	defer lf.Close()
	s.cmd = command(cred, dir, filepath.Join(bin, "postgres"), "-D", data, "-k", dir, "-c", "listen_addresses=",
		"-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off", "-c", "max_connections=50")
	s.cmd.Stdout, s.cmd.Stderr = lf, lf
	if err := s.start(); err != nil {
		return fail(err)
	}
	s.dsnf = func(db string) string {
		return fmt.Sprintf("postgres://postgres:%s@/%s?host=%s", s.Password, db, dir)
	}
	s.DSN = s.dsnf("DATABASE")
	err = s.waitReady(ctx, log, func(ctx context.Context) error {
		c, err := pgx.Connect(ctx, s.DSNFor("postgres"))
		if err != nil {
			return err
		}
		return c.Close(ctx)
	})
	if err != nil {
		s.Stop(syscall.SIGINT) // fast shutdown
		return nil, err
	}
	return s, nil
}
