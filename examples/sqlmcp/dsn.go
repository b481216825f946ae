package main

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
)

// target is the database -dsn names, parsed, with what must never be
// shown (its password) set apart.
type target struct {
	kind    string   // "sqlite", "mysql" or "postgres"
	display string   // the DSN with its password masked: the only form logged
	secrets []string // the password, as given and as escaped in the DSN

	sqlitePath string          // absolute
	mysql      *mysql.Config   // MultiStatements and InterpolateParams off
	postgres   *pgx.ConnConfig // as parsed; copied before changes
}

// dsnUsage says which DSNs the server takes.
const dsnUsage = "want sqlite:PATH, mysql://USER:PASSWORD@HOST:PORT/DATABASE or postgres://USER:PASSWORD@HOST:PORT/DATABASE"

// parseDSN parses -dsn. Its errors never hold the password.
func parseDSN(dsn string) (*target, error) {
	scheme, rest, ok := strings.Cut(dsn, ":")
	if !ok {
		return nil, errors.New("-dsn: " + dsnUsage)
	}
	switch strings.ToLower(scheme) {
	case "sqlite", "sqlite3", "file":
		path := strings.TrimPrefix(rest, "//")
		if path == "" {
			return nil, errors.New("-dsn sqlite: the path is missing")
		}
		abs, err := filepath.Abs(path)
		if err != nil {
			return nil, err
		}
		return &target{kind: "sqlite", display: "sqlite:" + abs, sqlitePath: abs}, nil
	case "mysql", "mariadb":
		u, t, err := parseURL(dsn, "mysql")
		if err != nil {
			return nil, err
		}
		t.mysql, err = mysqlConfig(u)
		return t, t.scrubErr(err)
	case "postgres", "postgresql":
		_, t, err := parseURL(dsn, "postgres")
		if err != nil {
			return nil, err
		}
		t.postgres, err = pgx.ParseConfig(dsn)
		if err != nil {
			return nil, t.scrubErr(fmt.Errorf("-dsn postgres: %w", err))
		}
		if t.postgres.Password != "" {
			t.addSecret(t.postgres.Password)
		}
		return t, nil
	}
	return nil, fmt.Errorf("-dsn: unknown database %q; %s", scheme, dsnUsage)
}

// parseURL parses a DSN in URL form and notes its password.
func parseURL(dsn, kind string) (*url.URL, *target, error) {
	u, err := url.Parse(dsn)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // without the URL, which holds the password
		}
		return nil, nil, fmt.Errorf("-dsn %s: %v", kind, err)
	}
	t := &target{kind: kind}
	if p, ok := u.User.Password(); ok && p != "" {
		t.addSecret(p)
	}
	if p := u.Query().Get("password"); p != "" {
		t.addSecret(p)
		q := u.Query()
		q.Set("password", "xxxxx")
		u2 := *u
		u2.RawQuery = q.Encode()
		t.display = u2.Redacted()
	} else {
		t.display = u.Redacted()
	}
	return u, t, nil
}

// addSecret notes a password, and the forms it takes escaped in a URL.
func (t *target) addSecret(p string) {
	t.secrets = append(t.secrets, p, url.QueryEscape(p), url.PathEscape(p), url.UserPassword("", p).String()[1:])
}

// scrub masks every secret in s.
func (t *target) scrub(s string) string {
	for _, p := range t.secrets {
		if p != "" {
			s = strings.ReplaceAll(s, p, "xxxxx")
		}
	}
	return s
}

// scrubErr returns err with every secret masked in its text (nil stays
// nil).
func (t *target) scrubErr(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	if clean := t.scrub(msg); clean != msg {
		return errors.New(clean)
	}
	return err
}

// mysqlConfig turns mysql://USER:PASSWORD@HOST:PORT/DB?PARAMS into the
// driver's configuration. socket=PATH in the query connects to a Unix
// socket instead of HOST:PORT; the other parameters are the driver's
// (tls, charset, collation, timeouts…).
func mysqlConfig(u *url.URL) (*mysql.Config, error) {
	q := u.Query()
	network, addr := "tcp", u.Host
	if s := q.Get("socket"); s != "" {
		network, addr = "unix", s
		q.Del("socket")
	} else {
		if addr == "" {
			addr = "127.0.0.1"
		}
		if _, _, err := net.SplitHostPort(addr); err != nil {
			addr = net.JoinHostPort(strings.Trim(addr, "[]"), "3306")
		}
	}
	q.Del("password")
	db := strings.TrimPrefix(u.Path, "/")
	cfg, err := mysql.ParseDSN(fmt.Sprintf("%s(%s)/%s?%s", network, addr, db, q.Encode()))
	if err != nil {
		return nil, fmt.Errorf("-dsn mysql: %w", err)
	}
	cfg.User = u.User.Username()
	cfg.Passwd, _ = u.User.Password()
	if p := u.Query().Get("password"); p != "" {
		cfg.Passwd = p
	}
	// One statement per call, bound by the server: text cannot smuggle a
	// second statement or a parameter into the first.
	cfg.MultiStatements = false
	cfg.InterpolateParams = false
	cfg.ParseTime = true
	// Uncompressed, so that boundedConn sees the packets (mysqlbound.go).
	if err := cfg.Apply(mysql.EnableCompression(false)); err != nil {
		return nil, fmt.Errorf("-dsn mysql: %w", err)
	}
	return cfg, nil
}
