package main

import (
	"strings"
	"testing"
)

// guardCase is a text and what the guard says of it in one dialect:
// refused with a reason holding want, or accepted (want == "").
type guardCase struct {
	dialect *dialect
	sql     string
	want    string
}

var guardCases = []guardCase{
	{sqliteDialect, "SELECT 1", ""},
	{sqliteDialect, "  (SELECT 1) UNION (SELECT 2)", ""},
	{sqliteDialect, "WITH x AS (SELECT 1) SELECT * FROM x;", ""},
	{sqliteDialect, "select 'DELETE; DROP' as s", ""},
	{sqliteDialect, `SELECT "update", [delete], ` + "`insert`" + ` FROM t`, ""},
	{sqliteDialect, "SELECT updated_at, created_by FROM t -- DELETE", ""},
	{sqliteDialect, "SELECT 'a''; DELETE FROM t'", ""},
	{sqliteDialect, "EXPLAIN QUERY PLAN SELECT 1", ""},
	{postgresDialect, "VALUES (1), (2)", ""},
	{postgresDialect, "TABLE orders", ""},
	{postgresDialect, "SELECT $$ ; DELETE FROM t $$, $tag$ x $$ y $tag$", ""},
	{postgresDialect, "SELECT E'it\\'s; DELETE'", ""},
	{postgresDialect, "SELECT $1::int", ""},
	{postgresDialect, "SELECT 1 --; DELETE FROM t", ""},
	{postgresDialect, "SELECT 1 /* /* */ ; DELETE */", ""},
	{mysqlDialect, "SHOW TABLES", ""},
	{mysqlDialect, "DESCRIBE orders", ""},
	{mysqlDialect, `SELECT 'it\'s; DELETE', "a\"; DROP"`, ""},

	{sqliteDialect, "", "holds no statement"},
	{sqliteDialect, " ; ;", "holds no statement"},
	{sqliteDialect, "SELECT 1; SELECT 2", "2 statements"},
	{sqliteDialect, "SELECT 'abc", "ends inside"},
	{sqliteDialect, "SELECT 1 /* ", "ends inside"},
	{sqliteDialect, "SELECT 1 /* /* */ ; DELETE */", "2 statements"},
	{sqliteDialect, "DELETE FROM t", "DELETE is not a read-only statement"},
	{sqliteDialect, "WITH x AS (SELECT 1) DELETE FROM t", "contains DELETE"},
	{sqliteDialect, "PRAGMA user_version", "PRAGMA is not"},
	{sqliteDialect, "SELECT * FROM t FOR UPDATE", "contains UPDATE"},
	{sqliteDialect, "SELECT * INTO t2 FROM t", "contains INTO"},
	{sqliteDialect, "42", "does not start with a keyword"},
	{postgresDialect, "WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d", "contains DELETE"},
	{postgresDialect, "EXPLAIN ANALYZE UPDATE t SET x = 1", "contains UPDATE"},
	{postgresDialect, "SELECT $$unterminated", "ends inside"},
	{postgresDialect, "COPY t TO '/tmp/x'", "COPY is not"},
	{postgresDialect, "DO $$ BEGIN END $$", "DO is not"},
	{mysqlDialect, "SELECT 1 # ; \n DELETE FROM t", "contains DELETE"},
	{mysqlDialect, "SELECT 1 --; DELETE FROM t", "2 statements"},
	{mysqlDialect, "/*!50000 DELETE FROM t */", "DELETE is not"},
	{mysqlDialect, "SELECT 1 /*! ; DROP TABLE t */", "2 statements"},
	{mysqlDialect, "SELECT * FROM t INTO OUTFILE '/tmp/x'", "contains INTO"},
	{mysqlDialect, "SET SESSION TRANSACTION READ WRITE", "SET is not"},
	{mysqlDialect, "CALL p()", "CALL is not"},
}

func TestCheckReadOnly(t *testing.T) {
	for _, c := range guardCases {
		err := checkReadOnly(c.sql, c.dialect.lex)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s %q: refused: %v", c.dialect.name, c.sql, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s %q: %v; want a refusal saying %q", c.dialect.name, c.sql, err, c.want)
		}
	}
}

func TestTablesNamed(t *testing.T) {
	list := []tableEntry{{Name: "orders"}, {Name: "Customers"}, {Name: "order items"}}
	got := tablesNamed(`SELECT * FROM "order items" JOIN customers c USING (id) JOIN orders o ON o.x = 'orders' JOIN public.orders`, postgresDialect.lex, list)
	if strings.Join(got, ",") != "order items,Customers,orders" {
		t.Errorf("tablesNamed: %q", got)
	}
	if got := tablesNamed("SELECT 'unterminated", postgresDialect.lex, list); got != nil {
		t.Errorf("tablesNamed of text that does not lex: %q", got)
	}
}

// FuzzCheckReadOnly: any text, in any dialect, is judged without a
// panic, and what passes is one statement that starts as a read and
// holds no writing word.
func FuzzCheckReadOnly(f *testing.F) {
	for _, c := range guardCases {
		f.Add(c.sql)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		for _, d := range []*dialect{sqliteDialect, mysqlDialect, postgresDialect} {
			if checkReadOnly(sql, d.lex) != nil {
				continue
			}
			sts, err := splitStatements(sql, d.lex)
			if err != nil || len(sts) != 1 || !readStarts[sts[0].firstWord()] {
				t.Fatalf("%s: %q passed: %v, %d statements", d.name, sql, err, len(sts))
			}
			for _, tok := range sts[0] {
				if tok.kind == tokWord && writeWords[tok.text] {
					t.Fatalf("%s: %q passed with %s", d.name, sql, tok.text)
				}
			}
		}
	})
}
