package main

import (
	"context"
	"database/sql"
	"errors"
	"time"
)

// Running statements: reads in a read-only transaction that is always
// rolled back, streamed up to a row cap; writes in a transaction of
// their own, committed.

// queryResult is what sql_query returns.
type queryResult struct {
	Columns   []string `json:"columns"`
	Rows      [][]any  `json:"rows" jsonschema:"the rows, each an array of values in the order of columns"`
	Truncated bool     `json:"truncated" jsonschema:"true when the statement had more rows than max_rows"`
	ElapsedMS float64  `json:"elapsed_ms"`
}

// executeResult is what sql_execute returns.
type executeResult struct {
	RowsAffected int64   `json:"rows_affected"`
	ElapsedMS    float64 `json:"elapsed_ms"`
}

// query runs one read-only statement: refused unless it reads
// (guard.go), then run by read.
func (db *database) query(ctx context.Context, stmt string, params []any, maxRows int) (*queryResult, error) {
	if err := checkReadOnly(stmt, db.d.lex); err != nil {
		return nil, err
	}
	return db.read(ctx, stmt, params, maxRows)
}

// read runs stmt in a read-only transaction on a read-only connection
// (its session made read-only again first), under the statement timeout,
// and keeps at most maxRows rows: rows are read one by one and the
// statement is stopped past the cap, so memory stays bounded whatever the
// result's size. The transaction is rolled back, whatever the statement
// did.
//
// The timeout holds for the answer even where the database cannot stop
// at once: a step SQLite cannot interrupt (a row of many values, each a
// function call), a driver still reading a row. Past the timeout and
// abandonGrace, read answers the timeout and leaves the statement to end
// in the background, on its own connection, which goes back to the pool
// then (the interrupt or cancellation is already on its way, and every
// bound on its memory holds). Only reads are left so: a write is waited
// for, as its commit may still happen.
func (db *database) read(ctx context.Context, stmt string, params []any, maxRows int) (*queryResult, error) {
	start := time.Now()
	args, err := bindParams(params)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(noteRefusals(ctx), db.timeout)
	defer cancel()
	type answer struct {
		res *queryResult
		err error
	}
	done := make(chan answer, 1)
	go func() {
		res, err := db.readOn(ctx, cancel, start, stmt, args, maxRows)
		done <- answer{res, err}
	}()
	select {
	case a := <-done:
		return a.res, a.err
	case <-ctx.Done():
	}
	if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		// Stopped at the row cap, or the request cancelled: the
		// statement ends now.
		a := <-done
		return a.res, a.err
	}
	grace := time.NewTimer(db.timeout / abandonGrace)
	defer grace.Stop()
	select {
	case a := <-done:
		return a.res, a.err
	case <-grace.C:
		return nil, &timeoutError{db.timeout}
	}
}

// abandonGrace: read waits the timeout's 1/abandonGrace more for the
// statement to answer its interrupt before it answers for it.
const abandonGrace = 50

// readOn is read's work, under ctx (cancel stops the statement past the
// row cap).
func (db *database) readOn(ctx context.Context, cancel context.CancelFunc, start time.Time, stmt string, args []any, maxRows int) (*queryResult, error) {
	c, err := db.conn(ctx, db.ro)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	if s := db.d.readOnlySession; s != "" {
		if _, err := c.ExecContext(ctx, s); err != nil {
			return nil, db.dbError(ctx, err)
		}
	}
	tx, err := db.begin(ctx, c, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	rows, err := tx.QueryContext(ctx, stmt, args...)
	if err != nil {
		return nil, db.dbError(ctx, err)
	}
	defer rows.Close()
	types, err := rows.ColumnTypes()
	if err != nil {
		return nil, db.dbError(ctx, err)
	}
	res := &queryResult{Columns: make([]string, len(types)), Rows: [][]any{}}
	for i, t := range types {
		res.Columns[i] = t.Name()
	}
	cells := make([]cell, len(types))
	dest := make([]any, len(types))
	for i := range cells {
		cells[i].ct = types[i]
		dest[i] = &cells[i]
	}
	for rows.Next() {
		if len(res.Rows) == maxRows {
			// One row too many: stop the statement rather than read (or,
			// for some drivers, drain) the rest.
			res.Truncated = true
			cancel()
			break
		}
		if err := rows.Scan(dest...); err != nil {
			return nil, db.dbError(ctx, err)
		}
		row := make([]any, len(cells))
		for i, c := range cells {
			row[i] = c.v
		}
		res.Rows = append(res.Rows, row)
	}
	if !res.Truncated {
		if err := rows.Err(); err != nil {
			return nil, db.dbError(ctx, err)
		}
	}
	res.ElapsedMS = millis(time.Since(start))
	return res, nil
}

// execute runs one statement that may write, on the writing pool, in a
// transaction under the statement timeout, and commits it.
func (db *database) execute(ctx context.Context, stmt string, params []any) (*executeResult, error) {
	start := time.Now()
	if _, err := oneStatement(stmt, db.d.lex); err != nil {
		return nil, err
	}
	args, err := bindParams(params)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(noteRefusals(ctx), db.timeout)
	defer cancel()
	c, err := db.conn(ctx, db.rw)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	tx, err := db.begin(ctx, c, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	r, err := tx.ExecContext(ctx, stmt, args...)
	if err != nil {
		return nil, db.dbError(ctx, err)
	}
	n, err := r.RowsAffected()
	if err != nil {
		return nil, db.dbError(ctx, err)
	}
	if err := tx.Commit(); err != nil {
		return nil, db.dbError(ctx, err)
	}
	return &executeResult{RowsAffected: n, ElapsedMS: millis(time.Since(start))}, nil
}

// conn takes a connection of pool p for one statement a tool was given,
// bounded as the dialect bounds such statements.
func (db *database) conn(ctx context.Context, p *sql.DB) (*sql.Conn, error) {
	c, err := p.Conn(ctx)
	if err != nil {
		return nil, db.dbError(ctx, err)
	}
	if db.d.limitConn != nil {
		if err := db.d.limitConn(c); err != nil {
			c.Close()
			return nil, db.dbError(ctx, err)
		}
	}
	return c, nil
}

// beginner is a pool or one of its connections.
type beginner interface {
	BeginTx(ctx context.Context, opts *sql.TxOptions) (*sql.Tx, error)
}

// begin starts a transaction on b with the statement timeout set in the
// database (where the dialect can).
func (db *database) begin(ctx context.Context, b beginner, opts *sql.TxOptions) (*sql.Tx, error) {
	tx, err := b.BeginTx(ctx, opts)
	if err != nil {
		return nil, db.dbError(ctx, err)
	}
	if db.d.setTimeout != nil {
		if err := db.d.setTimeout(ctx, tx, db.timeout); err != nil {
			tx.Rollback()
			return nil, db.dbError(ctx, err)
		}
	}
	return tx, nil
}

// millis is d in milliseconds, to the microsecond.
func millis(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
