package main

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/go-sql-driver/mysql"
)

// MySQL and MariaDB through github.com/go-sql-driver/mysql. Each
// connection of the read-only pool is set READ ONLY for the session
// (DDL, which commits implicitly and so escapes a READ ONLY transaction,
// is refused too); multiple statements and client-side interpolation are
// off (dsn.go). The statement timeout is MariaDB's max_statement_time,
// or MySQL's max_execution_time.

// mysqlUnknownVariable is the error number for a system variable the
// server lacks (MySQL has no max_statement_time).
const mysqlUnknownVariable = 1193

var mysqlDialect = &dialect{
	name:            "mysql",
	lex:             lexOptions{backslashEscapes: true, hashComments: true, dashNeedsSpace: true, execComments: true},
	placeholders:    "?",
	param:           func(int) string { return "?" },
	readOnlySession: "SET SESSION TRANSACTION READ ONLY",
	setTimeout: func(ctx context.Context, tx *sql.Tx, d time.Duration) error {
		_, err := tx.ExecContext(ctx, "SET SESSION max_statement_time = ?", d.Seconds())
		var me *mysql.MySQLError
		if errors.As(err, &me) && me.Number == mysqlUnknownVariable {
			_, err = tx.ExecContext(ctx, "SET SESSION max_execution_time = ?", d.Milliseconds())
		}
		return err
	},

	tablesSQL: `SELECT table_name, table_type FROM information_schema.tables
WHERE table_schema = DATABASE() ORDER BY table_name`,
	columnsSQL: `SELECT column_name, column_type, is_nullable = 'YES', column_default FROM information_schema.columns
WHERE table_schema = DATABASE() AND table_name = ? ORDER BY ordinal_position`,
	keysSQL: `SELECT CASE WHEN constraint_name = 'PRIMARY' THEN 'p' ELSE 'f' END, constraint_name, column_name,
  referenced_table_name, referenced_column_name, ordinal_position
FROM information_schema.key_column_usage
WHERE table_schema = DATABASE() AND table_name = ? AND (constraint_name = 'PRIMARY' OR referenced_table_name IS NOT NULL)
ORDER BY 1, 2, 6`,
	indexesSQL: `SELECT index_name, non_unique = 0, column_name FROM information_schema.statistics
WHERE table_schema = DATABASE() AND table_name = ? ORDER BY index_name, seq_in_index`,
}

// openMySQL opens the read-only pool and, if write, the writing one.
// Without TLS, their connections read no row longer than maxMessageBytes
// (mysqlbound.go).
func openMySQL(cfg *mysql.Config, write bool) (ro, rw *sql.DB, err error) {
	if cfg.TLS == nil && (cfg.TLSConfig == "" || cfg.TLSConfig == "false") && cfg.DialFunc == nil {
		cfg = cfg.Clone()
		cfg.DialFunc = dialBounded
	}
	base, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, nil, err
	}
	ro = sql.OpenDB(setupConnector{base, execSetup(mysqlDialect.readOnlySession)})
	if write {
		rw = sql.OpenDB(base)
	}
	return ro, rw, nil
}
