package main

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"time"
)

// dialect is what differs between the databases: how their SQL is
// lexed, how parameters are written, how a statement timeout is set, and
// the queries that read their catalogues. Every catalogue query takes the
// table's name as a bound parameter: no identifier is ever spliced into
// SQL.
type dialect struct {
	name string
	lex  lexOptions
	// placeholders says how a statement refers to its parameters, for
	// the tools' descriptions.
	placeholders string
	// param writes the i-th placeholder (1-based).
	param func(i int) string
	// readOnlySession, if not "", makes the session's transactions
	// read-only: run when a connection opens and again before each read
	// (a statement could have undone it).
	readOnlySession string
	// setTimeout, if not nil, makes the server itself stop a statement of
	// tx that runs longer than d (the context stops the client's wait).
	setTimeout func(ctx context.Context, tx *sql.Tx, d time.Duration) error
	// limitConn, if not nil, bounds what a statement may make on c (the
	// length of a value): run on the connection before each statement a
	// tool was given.
	limitConn func(c *sql.Conn) error

	// tablesSQL lists the tables and views: name, kind ("table"/"view"
	// or the catalogue's own words, which hold TABLE or VIEW).
	tablesSQL string
	// columnsSQL lists a table's columns in order: name, type, nullable,
	// default (NULL when none).
	columnsSQL string
	// keysSQL lists a table's primary key and foreign keys, a row per
	// column, in order: kind ("p" or "f"), constraint, column, referenced
	// table, referenced column (NULL for "p").
	keysSQL string
	// indexesSQL lists a table's indexes, a row per column, in order:
	// index, unique, column (NULL for an expression).
	indexesSQL string
}

// setupConnector runs setup on each connection it opens before
// database/sql may use it (to make the connection read-only). It hands
// out the driver's connection itself, so none of its optional
// interfaces is hidden.
type setupConnector struct {
	driver.Connector
	setup func(ctx context.Context, c driver.Conn) error
}

// Connect opens a connection and sets it up; one that fails to set up is
// closed.
func (s setupConnector) Connect(ctx context.Context) (driver.Conn, error) {
	c, err := s.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.setup(ctx, c); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// execSetup is a setup that runs one statement on the connection.
func execSetup(stmt string) func(ctx context.Context, c driver.Conn) error {
	return func(ctx context.Context, c driver.Conn) error {
		x, ok := c.(driver.ExecerContext)
		if !ok {
			return fmt.Errorf("the driver's connection (%T) cannot run %q", c, stmt)
		}
		_, err := x.ExecContext(ctx, stmt, nil)
		return err
	}
}
