package main

import (
	"fmt"
)

// The first of the three walls between sql_query and a write: the text
// itself must be one statement that starts as a read and names no
// writing keyword anywhere. It refuses with a reason the model can act
// on. The walls behind it hold without it: the read-only transaction
// (query.go) on a connection made read-only (dialect.go), and for SQLite
// an authorizer (sqlite.go).

// readStarts are the words a read-only statement may start with.
var readStarts = map[string]bool{
	"SELECT": true, "WITH": true, "VALUES": true, "TABLE": true,
	"EXPLAIN": true, "SHOW": true, "DESCRIBE": true, "DESC": true,
}

// writeWords may appear nowhere in a read-only statement: they write
// (a data-modifying WITH, EXPLAIN ANALYZE of a write, SELECT … FOR
// UPDATE), or hand data or control to somewhere else (SELECT … INTO a
// table, a variable or a file; COPY; CALL).
var writeWords = map[string]bool{
	"INSERT": true, "UPDATE": true, "DELETE": true, "MERGE": true, "UPSERT": true,
	"TRUNCATE": true, "DROP": true, "CREATE": true, "ALTER": true, "RENAME": true,
	"GRANT": true, "REVOKE": true, "ATTACH": true, "DETACH": true, "PRAGMA": true,
	"VACUUM": true, "REINDEX": true, "COPY": true, "CALL": true,
	"INTO": true, "OUTFILE": true, "DUMPFILE": true,
}

// refusal is why a statement is not run; its text goes to the model.
type refusal struct{ reason string }

func (r *refusal) Error() string { return "refused: " + r.reason }

func refuse(format string, args ...any) error {
	return &refusal{fmt.Sprintf(format, args...)}
}

// checkReadOnly refuses sql unless it is one statement that reads.
func checkReadOnly(sql string, o lexOptions) error {
	st, err := oneStatement(sql, o)
	if err != nil {
		return err
	}
	first := st.firstWord()
	if !readStarts[first] {
		if first == "" {
			return refuse("the statement does not start with a keyword; sql_query runs SELECT, WITH … SELECT, VALUES, TABLE, EXPLAIN, SHOW or DESCRIBE")
		}
		return refuse("%s is not a read-only statement; sql_query runs SELECT, WITH … SELECT, VALUES, TABLE, EXPLAIN, SHOW or DESCRIBE (writes go through sql_execute, offered when the server runs with -allow-write)", first)
	}
	for _, t := range st {
		if t.kind == tokWord && writeWords[t.text] {
			return refuse("the statement contains %s, which writes or sends data elsewhere; sql_query only reads (quote an identifier spelled %s)", t.text, t.text)
		}
	}
	return nil
}

// oneStatement returns sql's only statement, refusing none or several.
func oneStatement(sql string, o lexOptions) (statement, error) {
	sts, err := splitStatements(sql, o)
	if err != nil {
		return nil, refuse("%v", err)
	}
	switch len(sts) {
	case 0:
		return nil, refuse("the SQL holds no statement")
	case 1:
		return sts[0], nil
	}
	return nil, refuse("the SQL holds %d statements; send one statement per call", len(sts))
}
