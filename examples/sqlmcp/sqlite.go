package main

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"net/url"
	"strings"

	"modernc.org/sqlite"
)

// SQLite through modernc.org/sqlite (SQLite compiled to Go: no cgo).
// The read-only pool opens the file with mode=ro (every write fails with
// SQLITE_READONLY), sets query_only, and installs an authorizer that
// lets a statement read and nothing else: no ATTACH (which would open or
// create another file), no temporary tables, no PRAGMA that sets
// anything, no ANALYZE. A timeout interrupts the statement through the
// context (sqlite3_interrupt). A value and the memory of all statements
// are bounded (sqlitebounds.go).

var sqliteDialect = &dialect{
	name:         "sqlite",
	lex:          lexOptions{brackets: true},
	placeholders: "? (or ?1, ?2, …)",
	param:        func(int) string { return "?" },
	limitConn:    limitSQLiteConn,

	tablesSQL: `SELECT name, type FROM sqlite_schema
WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite\_%' ESCAPE '\'
ORDER BY name`,
	columnsSQL: `SELECT name, type, "notnull" = 0, dflt_value FROM pragma_table_info(?1) ORDER BY cid`,
	keysSQL: `SELECT 'p', '', name, NULL, NULL, pk FROM pragma_table_info(?1) WHERE pk > 0
UNION ALL
SELECT 'f', 'fk' || id, "from", "table", "to", seq FROM pragma_foreign_key_list(?1)
ORDER BY 1, 2, 6`,
	indexesSQL: `SELECT il.name, il."unique", ii.name
FROM pragma_index_list(?1) AS il, pragma_index_info(il.name) AS ii
ORDER BY il.name, ii.seqno`,
}

// sqliteURI is the URI SQLite opens path with, with query parameters.
func sqliteURI(path string, params ...string) string {
	return "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + strings.Join(params, "&")
}

// openSQLite opens the read-only pool and, if write, the writing one.
func openSQLite(path string, write bool) (ro, rw *sql.DB, err error) {
	base, err := sqliteConnector(path, "mode=ro", "_pragma=busy_timeout(5000)", "_query_only=1")
	if err != nil {
		return nil, nil, err
	}
	ro = sql.OpenDB(setupConnector{base, authorizeReadsOnly})
	if !write {
		return ro, nil, nil
	}
	wc, err := sqliteConnector(path, "mode=rw", "_pragma=busy_timeout(5000)", "_pragma=foreign_keys(1)")
	if err != nil {
		ro.Close()
		return nil, nil, err
	}
	return ro, sql.OpenDB(wc), nil
}

// readOnlyPragmas are the pragmas that only read, with or without an
// argument; any other pragma is allowed only without one (a query of
// its value, which a mode=ro connection cannot act on).
var readOnlyPragmas = map[string]bool{
	"table_info": true, "table_xinfo": true, "table_list": true,
	"index_list": true, "index_info": true, "index_xinfo": true,
	"foreign_key_list": true, "foreign_key_check": true, "integrity_check": true, "quick_check": true,
	"database_list": true, "collation_list": true, "function_list": true, "pragma_list": true,
}

// authorizeReadsOnly installs the read-only authorizer on a new
// connection.
func authorizeReadsOnly(_ context.Context, c driver.Conn) error {
	r, ok := c.(sqlite.AuthorizerRegisterer)
	if !ok {
		return fmt.Errorf("the SQLite connection (%T) takes no authorizer", c)
	}
	return r.RegisterAuthorizer(func(action sqlite.AuthorizerActionCode, arg1, arg2, _, _ string) sqlite.AuthorizerReturnCode {
		switch action {
		case sqlite.AuthSelect, sqlite.AuthRead, sqlite.AuthRecursive, sqlite.AuthTransaction:
			// AuthTransaction: BEGIN and ROLLBACK of the read-only
			// transaction (a COMMIT commits nothing on mode=ro).
			return sqlite.AuthorizerOK
		case sqlite.AuthFunction:
			if strings.EqualFold(arg2, "load_extension") {
				return sqlite.AuthorizerDeny
			}
			return sqlite.AuthorizerOK
		case sqlite.AuthPragma:
			if arg2 == "" || readOnlyPragmas[strings.ToLower(arg1)] {
				return sqlite.AuthorizerOK
			}
		}
		return sqlite.AuthorizerDeny
	})
}
