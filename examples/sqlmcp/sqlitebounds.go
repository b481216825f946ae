package main

import (
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"strconv"
	"sync"

	"modernc.org/libc"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// The memory one SQLite statement may take. A single value is bounded
// by SQLITE_LIMIT_LENGTH on the connection the statement runs on, so
// randomblob(1e9), zeroblob(1e9), printf('%.*c', 1e9, 'x') or a string
// concatenated past it fail at once with SQLITE_TOOBIG instead of
// building a gigabyte in one uninterruptible call. Everything SQLite
// allocates in the process (values, rows of many such columns, sorters,
// page caches) is bounded by its hard heap limit, past which an
// allocation fails with SQLITE_NOMEM: the statement fails, the
// connection and the others go on.
//
// modernc.org/sqlite is built with SQLITE_DEFAULT_MEMSTATUS=0, and
// without memory statistics SQLite ignores the hard heap limit; so the
// statistics are turned on (SQLITE_CONFIG_MEMSTATUS) before SQLite is
// first initialised, which is before this process opens its first
// SQLite connection: every connector is made by sqliteConnector.

const (
	// sqliteMaxValueBytes is SQLITE_LIMIT_LENGTH: the longest string or
	// blob a statement may make or read (a longer stored value can still
	// be measured with length(), which does not load it).
	sqliteMaxValueBytes = 16 << 20
	// sqliteHeapLimitBytes is the hard heap limit: all SQLite memory of
	// the process, every connection together.
	sqliteHeapLimitBytes = 64 << 20
)

var sqliteMemStatus struct {
	once sync.Once
	err  error
}

// enableSQLiteMemStatus turns SQLite's memory statistics on, once per
// process; it fails if SQLite was initialised before (a connection
// opened elsewhere first), as the heap limit would then not hold.
func enableSQLiteMemStatus() error {
	sqliteMemStatus.once.Do(func() {
		tls := libc.NewTLS()
		defer tls.Close()
		va := libc.Xmalloc(tls, 8)
		if va == 0 {
			sqliteMemStatus.err = errors.New("sqlite: no memory to configure memory statistics")
			return
		}
		defer libc.Xfree(tls, va)
		if rc := sqlite3.Xsqlite3_config(tls, sqlite3.SQLITE_CONFIG_MEMSTATUS, libc.VaList(va, int32(1))); rc != sqlite3.SQLITE_OK {
			sqliteMemStatus.err = fmt.Errorf("sqlite: turning memory statistics on failed (code %d): SQLite was initialised before; the heap limit would not hold", rc)
		}
	})
	return sqliteMemStatus.err
}

// sqliteConnector is a connector for the SQLite URI of path with params,
// its connections under the process's hard heap limit.
func sqliteConnector(path string, params ...string) (driver.Connector, error) {
	if err := enableSQLiteMemStatus(); err != nil {
		return nil, err
	}
	params = append(params, "_pragma=hard_heap_limit("+strconv.Itoa(sqliteHeapLimitBytes)+")")
	return sqlite.NewConnector(sqliteURI(path, params...))
}

// limitSQLiteConn bounds the values a statement on c may make or read
// (SQLITE_LIMIT_LENGTH). The limit belongs to the connection and
// database/sql hands the same one out again, so setting it before each
// statement the model wrote costs one call and holds whatever ran on c
// before.
func limitSQLiteConn(c *sql.Conn) error {
	_, err := sqlite.Limit(c, sqlite3.SQLITE_LIMIT_LENGTH, sqliteMaxValueBytes)
	return err
}
