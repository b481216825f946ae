package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// backend is a database holding the demo, fresh for one test, and the
// test's own way into it.
type backend struct {
	kind string // sqlite, mariadb, postgres
	dsn  string // for -dsn
	db   *database
}

// kinds are the backends every end-to-end test runs against.
var kinds = []string{"sqlite", "mariadb", "postgres"}

// forEachBackend runs f in a subtest per kind, each with a fresh demo
// database.
func forEachBackend(t *testing.T, f func(t *testing.T, b *backend)) {
	for _, kind := range kinds {
		t.Run(kind, func(t *testing.T) { f(t, newBackend(t, kind)) })
	}
}

var dbSeq atomic.Int64

// newBackend makes a database of kind holding the demo, dropped (or
// removed) when the test ends.
func newBackend(t testing.TB, kind string) *backend {
	t.Helper()
	ctx := context.Background()
	var dsn string
	switch kind {
	case "sqlite":
		path := filepath.Join(t.TempDir(), "demo.db")
		if err := os.WriteFile(path, nil, 0o600); err != nil { // an empty file is an empty database
			t.Fatal(err)
		}
		dsn = "sqlite:" + path
	default:
		s := server(t, kind)
		name := fmt.Sprintf("sqlmcp_%d_%d", time.Now().UnixNano()%1e6, dbSeq.Add(1))
		admin := openDSN(t, s.DSNFor(map[string]string{"postgres": "postgres", "mariadb": ""}[kind]))
		if _, err := admin.rw.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			admin.rw.ExecContext(context.Background(), dropDatabase(kind, name))
			admin.Close()
		})
		dsn = s.DSNFor(name)
	}
	b := &backend{kind: kind, dsn: dsn, db: openDSN(t, dsn)}
	t.Cleanup(func() { b.db.Close() })
	if err := seedDemo(ctx, b.db.rw, b.db.d); err != nil {
		t.Fatal(err)
	}
	return b
}

// dropDatabase drops a database, its sessions ended first.
func dropDatabase(kind, name string) string {
	if kind == "postgres" {
		return "DROP DATABASE " + name + " WITH (FORCE)"
	}
	return "DROP DATABASE " + name
}

// openDSN opens dsn as the server does, with the writing pool, for the
// test's own use.
func openDSN(t testing.TB, dsn string) *database {
	t.Helper()
	tg, err := parseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	db, err := openDatabase(tg, poolOptions{maxConns: 2, timeout: 30 * time.Second, write: true})
	if err != nil {
		t.Fatal(err)
	}
	return db
}

// quoteIdent quotes a table name for the test's own queries (the
// server never does this: it binds names as parameters).
func (b *backend) quoteIdent(name string) string {
	if b.kind == "mariadb" {
		return "`" + name + "`"
	}
	return `"` + name + `"`
}

// checksum hashes everything a write could change: the list of tables
// and views, each one's structure, every row of every table (in any
// order) and, for SQLite, the header's user_version.
func (b *backend) checksum(t testing.TB) string {
	t.Helper()
	ctx := context.Background()
	h := sha256.New()
	list, err := b.db.tables(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, tb := range list {
		info, err := b.db.describe(ctx, tb.Name)
		if err != nil {
			t.Fatal(err)
		}
		js, err := json.Marshal(info)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(h, "%s\n", js)
		if tb.Kind != "table" {
			continue
		}
		rows, err := b.db.rw.QueryContext(ctx, "SELECT * FROM "+b.quoteIdent(tb.Name))
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rows.Columns()
		var lines []string
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			lines = append(lines, fmt.Sprintf("%q", vals))
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		rows.Close()
		slices.Sort(lines)
		fmt.Fprintf(h, "%s: %d rows\n%s\n", tb.Name, len(lines), strings.Join(lines, "\n"))
	}
	if b.kind == "sqlite" {
		var v int
		if err := b.db.rw.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(h, "user_version %d\n", v)
	}
	return hex.EncodeToString(h.Sum(nil))
}
