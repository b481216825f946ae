package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The safety table: statements that write, each sent through sql_query,
// must be refused or rolled back and leave the database as it was (a
// checksum of every table, its rows and its structure) and no file
// behind. The same statements given to the read-only transaction
// directly, with the lexical guard out of the way, must leave it as it
// was too: the guard is not the only wall.

// safetyCase is a statement that writes, as each database spells it
// ("*" for all that have no spelling of their own).
type safetyCase struct {
	name string
	sql  map[string]string
	// onlyTheDatabase: the text is a plain read that the guard cannot
	// tell from one (a function's body writes); the database refuses.
	onlyTheDatabase bool
	// onlyTheGuard names the databases where the read-only transaction
	// does not stop it, and the guard alone does.
	onlyTheGuard map[string]string
}

// spelling is the statement as kind spells it.
func (c safetyCase) spelling(kind string) string {
	if s, ok := c.sql[kind]; ok {
		return s
	}
	return c.sql["*"]
}

// safetyCases are the writes; DIR stands for a directory files may not
// appear in.
var safetyCases = []safetyCase{
	// First: the cases after it would write if a session stayed read-write.
	{name: "set the session read-write", sql: map[string]string{
		"*":        "SET SESSION TRANSACTION READ WRITE",
		"postgres": "SET SESSION CHARACTERISTICS AS TRANSACTION READ WRITE",
	}},
	{name: "insert", sql: map[string]string{"*": "INSERT INTO customers (id, name, email, country, created_at) VALUES (999, 'x', 'x@example.com', 'XX', '2024-01-01')"}},
	{name: "update", sql: map[string]string{"*": "UPDATE products SET price = 0"}},
	{name: "delete", sql: map[string]string{"*": "DELETE FROM orders"}},
	{name: "drop", sql: map[string]string{"*": "DROP TABLE orders"}},
	{name: "create", sql: map[string]string{"*": "CREATE TABLE evil (x INTEGER)"}},
	{name: "create temporary", sql: map[string]string{"*": "CREATE TEMPORARY TABLE evil (x INTEGER)"}},
	{name: "attach", sql: map[string]string{"*": "ATTACH DATABASE 'DIR/evil.db' AS evil"}},
	{name: "pragma write", sql: map[string]string{"*": "PRAGMA user_version = 42"}},
	{name: "pragma query_only off", sql: map[string]string{"*": "PRAGMA query_only = 0"}},
	{name: "select into", sql: map[string]string{
		"*":       "SELECT * INTO evil FROM customers",
		"mariadb": "SELECT * FROM customers INTO OUTFILE 'DIR/evil.csv'",
	}, onlyTheGuard: map[string]string{
		"mariadb": "a READ ONLY transaction writes files all the same for a user with the FILE privilege: grant the server's user no FILE",
	}},
	{name: "multiple statements", sql: map[string]string{"*": "SELECT 1; DELETE FROM orders"}},
	{name: "multiple statements behind a comment", sql: map[string]string{"*": "SELECT 1 /* ; */ ; DELETE FROM orders -- ;"}},
	{name: "writing CTE", sql: map[string]string{
		"*":        "WITH x AS (SELECT 1) DELETE FROM orders",
		"postgres": "WITH gone AS (DELETE FROM orders RETURNING id) SELECT COUNT(*) FROM gone",
	}},
	{name: "function with side effects", sql: map[string]string{
		"*":      "SELECT evil_insert()",
		"sqlite": "SELECT load_extension('DIR/evil')",
	}, onlyTheDatabase: true},
	{name: "explain analyze of a write", sql: map[string]string{"*": "EXPLAIN ANALYZE DELETE FROM orders"}},
	{name: "select for update", sql: map[string]string{"*": "SELECT * FROM orders FOR UPDATE"}},
	{name: "executable comment", sql: map[string]string{"*": "/*!50000 DELETE FROM orders */"}},
	{name: "commit the read-only transaction", sql: map[string]string{"*": "COMMIT"}},
}

// evilFunctions creates, where the database has stored functions, one
// that inserts a row when selected.
var evilFunctions = map[string]string{
	"postgres": `CREATE FUNCTION evil_insert() RETURNS integer LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO customers (id, name, email, country, created_at) VALUES (998, 'evil', 'evil@example.com', 'XX', '2024-01-01');
  RETURN 1;
END $$`,
	"mariadb": `CREATE FUNCTION evil_insert() RETURNS INT MODIFIES SQL DATA
BEGIN
  INSERT INTO customers (id, name, email, country, created_at) VALUES (998, 'evil', 'evil@example.com', 'XX', '2024-01-01');
  RETURN 1;
END`,
}

// setupSafety makes the backend's function with side effects and proves
// it has them (in a transaction rolled back), so that its case is a real
// write; it returns the directory no file may appear in.
func setupSafety(t *testing.T, b *backend) string {
	ctx := context.Background()
	if f, ok := evilFunctions[b.kind]; ok {
		if _, err := b.db.rw.ExecContext(ctx, f); err != nil {
			t.Fatal(err)
		}
		tx, err := b.db.rw.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		var n int
		if _, err := tx.ExecContext(ctx, "SELECT evil_insert()"); err != nil {
			t.Fatal(err)
		}
		if err := tx.QueryRowContext(ctx, "SELECT COUNT(*) FROM customers WHERE id = 998").Scan(&n); err != nil || n != 1 {
			t.Fatalf("evil_insert() inserted %d rows (%v): the case would prove nothing", n, err)
		}
		tx.Rollback()
	}
	dir, err := os.MkdirTemp("", "sqlmcp-evil-")
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o777) // a server running as nobody could write here
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// checkUnchanged fails unless the database's checksum is before and dir
// is empty.
func checkUnchanged(t *testing.T, b *backend, before, dir, what string) {
	t.Helper()
	if after := b.checksum(t); after != before {
		t.Errorf("%s changed the database", what)
	}
	if files, _ := os.ReadDir(dir); len(files) > 0 {
		t.Errorf("%s left %s in %s", what, files[0].Name(), dir)
	}
}

func TestSafety_sqlQueryNeverWrites(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b *backend) {
		dir := setupSafety(t, b)
		before := b.checksum(t)
		// With -allow-write: sql_query stays read-only when writes are
		// offered.
		s := startStdio(t, "-dsn", b.dsn, "-allow-write")
		for _, c := range safetyCases {
			stmt := strings.ReplaceAll(c.spelling(b.kind), "DIR", filepath.ToSlash(dir))
			res := call(t, s.ClientSession, "sql_query", map[string]any{"sql": stmt})
			if !res.IsError {
				t.Errorf("%s: %q was not refused: %s", c.name, stmt, text(t, res))
			}
			checkUnchanged(t, b, before, dir, c.name)
		}
	})
}

func TestSafety_readOnlyTransactionWithoutTheGuard(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b *backend) {
		dir := setupSafety(t, b)
		before := b.checksum(t)
		ctx := context.Background()
		for _, c := range safetyCases {
			stmt := strings.ReplaceAll(c.spelling(b.kind), "DIR", filepath.ToSlash(dir))
			if checkReadOnly(stmt, b.db.d.lex) == nil && !c.onlyTheDatabase {
				t.Errorf("%s: the guard lets %q through", c.name, stmt)
			}
			if why, ok := c.onlyTheGuard[b.kind]; ok {
				t.Logf("%s: not run without the guard: %s", c.name, why)
				continue
			}
			_, err := b.db.read(ctx, stmt, nil, 10) // no guard
			t.Logf("%s: %v", c.name, err)
			checkUnchanged(t, b, before, dir, c.name+" (without the guard)")
		}
	})
}
