package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5/pgconn"
	"modernc.org/sqlite"
)

// Errors a model can act on: a driver's error becomes the database's own
// message and code; a statement stopped by the timeout says so and what
// to do about it. Every text is scrubbed of the DSN's password.

// Error codes that mean a statement was stopped by the statement
// timeout.
const (
	pgQueryCanceled       = "57014" // statement_timeout
	mariadbStatementTime  = 1969    // max_statement_time exceeded
	mysqlExecutionTime    = 3024    // max_execution_time exceeded
	sqliteInterruptResult = 9       // SQLITE_INTERRUPT: the context's interrupt
)

// timeoutError is a statement stopped by the timeout.
type timeoutError struct{ limit time.Duration }

func (e *timeoutError) Error() string {
	return fmt.Sprintf("the statement ran longer than the timeout of %v and was cancelled; "+
		"make it cheaper (a LIMIT, a narrower WHERE, fewer joins) or restart the server with a longer -timeout", e.limit)
}

// dbError turns err, met while ctx was the statement's context, into the
// error the model sees (nil stays nil).
func (db *database) dbError(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	var re *refusal
	var ute *unknownTableError
	var te *timeoutError
	switch {
	case errors.As(err, &re), errors.As(err, &ute), errors.As(err, &te):
		return err
	case errors.Is(ctx.Err(), context.DeadlineExceeded) || isTimeout(err):
		return &timeoutError{db.timeout}
	case errors.Is(ctx.Err(), context.Canceled):
		return errors.New("the request was cancelled")
	}
	if be := boundError(ctx, err); be != nil {
		return be
	}
	return db.t.scrubErr(errors.New(describeDriverError(db.d.name, err)))
}

// isTimeout reports whether err is the server's own statement timeout.
func isTimeout(err error) bool {
	var pe *pgconn.PgError
	var me *mysql.MySQLError
	var se *sqlite.Error
	switch {
	case errors.As(err, &pe):
		return pe.Code == pgQueryCanceled
	case errors.As(err, &me):
		return me.Number == mariadbStatementTime || me.Number == mysqlExecutionTime
	case errors.As(err, &se):
		return se.Code()&0xff == sqliteInterruptResult
	}
	return false
}

// describeDriverError writes err as "<database> error <code>: <message>"
// with what else the driver says (detail, hint, position).
func describeDriverError(kind string, err error) string {
	var pe *pgconn.PgError
	var me *mysql.MySQLError
	var se *sqlite.Error
	switch {
	case errors.As(err, &pe):
		var b strings.Builder
		fmt.Fprintf(&b, "postgres error %s (SQLSTATE): %s", pe.Code, pe.Message)
		if pe.Detail != "" {
			fmt.Fprintf(&b, "\ndetail: %s", pe.Detail)
		}
		if pe.Hint != "" {
			fmt.Fprintf(&b, "\nhint: %s", pe.Hint)
		}
		if pe.Position > 0 {
			fmt.Fprintf(&b, "\nat character %d of the statement", pe.Position)
		}
		return b.String()
	case errors.As(err, &me):
		state := ""
		if me.SQLState != [5]byte{} {
			state = fmt.Sprintf(" (SQLSTATE %s)", me.SQLState[:])
		}
		return fmt.Sprintf("mysql error %d%s: %s", me.Number, state, me.Message)
	case errors.As(err, &se):
		return fmt.Sprintf("sqlite error %d: %s", se.Code(), se.Error())
	}
	return fmt.Sprintf("%s: %v", kind, err)
}
