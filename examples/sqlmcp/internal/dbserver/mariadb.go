package dbserver

import (
	"context"
	"crypto/rand"
	"database/sql"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"

	"github.com/go-sql-driver/mysql"
)

// StartMariaDB initialises a data directory in a new temporary
// directory and starts MariaDB on a free loopback port (and a Unix
// socket in the directory, for setting up), then makes the user sqlmcp,
// with a password and every privilege, for tests to connect as over
// TCP.
func StartMariaDB(ctx context.Context) (*Server, error) {
	install, err1 := exec.LookPath("mariadb-install-db")
	daemon, err2 := lookPath("mariadbd")
	if err1 != nil || err2 != nil {
		return nil, fmt.Errorf("mariadb: %w (apt-get install mariadb-server)", ErrNotInstalled)
	}
	cred, err := credential()
	if err != nil {
		return nil, err
	}
	dir, err := tempDir("sqlmcp-mariadb-", cred)
	if err != nil {
		return nil, err
	}
	s := &Server{dir: dir, Password: rand.Text()}
	data := filepath.Join(dir, "data")
	err = run(command(cred, dir, install, "--no-defaults", "--datadir="+data,
		"--auth-root-authentication-method=normal", "--skip-test-db", "--skip-name-resolve"))
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	port, err := freePort()
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	sock := filepath.Join(dir, "mysqld.sock")
	log := filepath.Join(dir, "error.log")
	s.cmd = command(cred, dir, daemon, "--no-defaults", "--datadir="+data, "--socket="+sock,
		fmt.Sprintf("--port=%d", port), "--bind-address=127.0.0.1", "--skip-name-resolve",
		"--log-error="+log, "--pid-file="+filepath.Join(dir, "mysqld.pid"), "--skip-log-bin",
		"--innodb-buffer-pool-size=32M", "--innodb-flush-log-at-trx-commit=0", "--max-connections=50")
	if err := s.start(); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	root := mysql.NewConfig()
	root.User, root.Net, root.Addr = "root", "unix", sock
	var admin *sql.DB
	err = s.waitReady(ctx, log, func(ctx context.Context) error {
		c, err := mysql.NewConnector(root)
		if err != nil {
			return err
		}
		db := sql.OpenDB(c)
		if err := db.PingContext(ctx); err != nil {
			db.Close()
			return err
		}
		admin = db
		return nil
	})
	if err != nil {
		s.Stop(syscall.SIGTERM)
		return nil, err
	}
	defer admin.Close()
	for _, q := range []string{
		"CREATE USER 'sqlmcp'@'127.0.0.1' IDENTIFIED BY '" + s.Password + "'", // rand.Text: base32, nothing to escape
		"GRANT ALL PRIVILEGES ON *.* TO 'sqlmcp'@'127.0.0.1'",
	} {
		if _, err := admin.ExecContext(ctx, q); err != nil {
			s.Stop(syscall.SIGTERM)
			return nil, fmt.Errorf("%s: %w", q, err)
		}
	}
	s.dsnf = func(db string) string {
		return fmt.Sprintf("mysql://sqlmcp:%s@127.0.0.1:%d/%s", s.Password, port, db)
	}
	s.DSN = s.dsnf("DATABASE")
	return s, nil
}

// lookPath finds a daemon on PATH or in /usr/sbin (not on every user's
// PATH).
func lookPath(name string) (string, error) {
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	p := filepath.Join("/usr/sbin", name)
	_, err := os.Stat(p)
	return p, err
}

// freePort returns a loopback TCP port nobody listens on now.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}
