package main

import (
	"context"
	"database/sql"
	"io"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/jackc/pgx/v5/stdlib"
)

// PostgreSQL through github.com/jackc/pgx/v5 (its database/sql
// adapter). Each connection of the read-only pool makes read-only every
// transaction of its session; the statement timeout is the server's
// statement_timeout, set for the transaction alone. Catalogue queries
// look at the current schema (the first of search_path).

var postgresDialect = &dialect{
	name:            "postgres",
	lex:             lexOptions{nestedComments: true, dollarQuotes: true, escapeStrings: true},
	placeholders:    "$1, $2, …",
	param:           func(i int) string { return "$" + strconv.Itoa(i) },
	readOnlySession: "SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY",
	setTimeout: func(ctx context.Context, tx *sql.Tx, d time.Duration) error {
		_, err := tx.ExecContext(ctx, "SELECT set_config('statement_timeout', $1, true)", strconv.FormatInt(max(d.Milliseconds(), 1), 10))
		return err
	},

	tablesSQL: `SELECT table_name, table_type FROM information_schema.tables
WHERE table_schema = current_schema() ORDER BY table_name`,
	columnsSQL: `SELECT column_name, data_type, is_nullable = 'YES', column_default FROM information_schema.columns
WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position`,
	keysSQL: `SELECT c.contype::text, c.conname, a.attname, rt.relname, ra.attname, k.i
FROM pg_constraint c
JOIN pg_class t ON t.oid = c.conrelid
JOIN pg_namespace n ON n.oid = t.relnamespace
CROSS JOIN LATERAL unnest(c.conkey, c.confkey) WITH ORDINALITY AS k(col, refcol, i)
JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.col
LEFT JOIN pg_class rt ON rt.oid = c.confrelid
LEFT JOIN pg_attribute ra ON ra.attrelid = c.confrelid AND ra.attnum = k.refcol
WHERE c.contype IN ('p', 'f') AND n.nspname = current_schema() AND t.relname = $1
ORDER BY 1 DESC, 2, 6`,
	indexesSQL: `SELECT i.relname, ix.indisunique, a.attname
FROM pg_index ix
JOIN pg_class t ON t.oid = ix.indrelid
JOIN pg_namespace n ON n.oid = t.relnamespace
JOIN pg_class i ON i.oid = ix.indexrelid
CROSS JOIN LATERAL unnest(ix.indkey::int2[]) WITH ORDINALITY AS k(col, ord)
LEFT JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.col
WHERE n.nspname = current_schema() AND t.relname = $1
ORDER BY 1, k.ord`,
}

// openPostgres opens the read-only pool and, if write, the writing one.
// Their connections read no message longer than maxMessageBytes.
func openPostgres(cfg *pgx.ConnConfig, write bool) (ro, rw *sql.DB) {
	c := *cfg
	c.BuildFrontend = boundedFrontend
	ro = sql.OpenDB(setupConnector{stdlib.GetConnector(c), execSetup(postgresDialect.readOnlySession)})
	if write {
		rw = stdlib.OpenDB(c)
	}
	return ro, rw
}

// boundedFrontend is pgx's reader of the server's messages, refusing a
// message (a row of a result, most often) longer than maxMessageBytes
// from its header, before reading it: pgx would otherwise take up to a
// gigabyte for one row. The connection is closed then, which ends the
// statement in the server too.
func boundedFrontend(r io.Reader, w io.Writer) *pgproto3.Frontend {
	f := pgproto3.NewFrontend(r, w)
	f.SetMaxBodyLen(maxMessageBytes)
	return f
}
