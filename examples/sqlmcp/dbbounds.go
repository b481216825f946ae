package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5/pgproto3"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// Errors of a statement that asked for more memory than the server
// gives one: each says which bound it met and what to do instead.

// maxMessageBytes bounds one message a PostgreSQL or MySQL server
// sends this one: a row of a result, whole, with every value in it.
const maxMessageBytes = 16 << 20

// boundError is the error the model sees for err when err is a bound
// met (nil otherwise).
func boundError(ctx context.Context, err error) error {
	if errors.Is(err, mysql.ErrInvalidConn) && refusedSince(ctx) {
		return fmt.Errorf("mysql: a row of the result is longer than %d MiB, the most this server reads; "+
			"select fewer or shorter values (SUBSTRING, LEFT, LENGTH)", maxMessageBytes>>20)
	}
	var se *sqlite.Error
	var pe *pgproto3.ExceededMaxBodyLenErr
	if errors.As(err, &pe) {
		return fmt.Errorf("postgres: a row of the result is longer than %d MiB, the most this server reads; "+
			"select fewer or shorter values (substr, left, length)", maxMessageBytes>>20)
	}
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqlite3.SQLITE_TOOBIG:
			return fmt.Errorf("sqlite error %d: the statement made or read a value longer than %d MiB, the longest this server allows; "+
				"select a part of it (substr) or its length (length) instead", se.Code(), sqliteMaxValueBytes>>20)
		case sqlite3.SQLITE_NOMEM:
			return fmt.Errorf("sqlite error %d: the statement, with those running beside it, needed more than the %d MiB of memory "+
				"this server gives SQLite; select fewer or shorter values, or fewer rows at once", se.Code(), sqliteHeapLimitBytes>>20)
		}
	}
	return nil
}
