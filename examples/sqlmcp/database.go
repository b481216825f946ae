package main

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// database is the server's way to the database: a read-only pool for
// queries and the catalogue, and, with -allow-write, a writing one. Safe
// for concurrent use.
type database struct {
	d       *dialect
	t       *target
	ro      *sql.DB
	rw      *sql.DB // nil: writes are not offered
	timeout time.Duration
}

// poolOptions bound the pools.
type poolOptions struct {
	maxConns int           // connections each pool may open
	timeout  time.Duration // per statement
	write    bool          // open the writing pool
}

// openDatabase opens the pools for t; nothing is dialled yet.
func openDatabase(t *target, o poolOptions) (*database, error) {
	db := &database{t: t, timeout: o.timeout}
	var err error
	switch t.kind {
	case "sqlite":
		db.d = sqliteDialect
		db.ro, db.rw, err = openSQLite(t.sqlitePath, o.write)
	case "mysql":
		db.d = mysqlDialect
		db.ro, db.rw, err = openMySQL(t.mysql, o.write)
	case "postgres":
		db.d = postgresDialect
		db.ro, db.rw = openPostgres(t.postgres, o.write)
	default:
		err = fmt.Errorf("unknown database kind %q", t.kind)
	}
	if err != nil {
		return nil, t.scrubErr(err)
	}
	bound(db.ro, o.maxConns)
	if db.rw != nil {
		n := o.maxConns
		if t.kind == "sqlite" {
			n = 1 // one writer at a time
		}
		bound(db.rw, n)
	}
	return db, nil
}

// bound sets a pool's limits.
func bound(p *sql.DB, n int) {
	p.SetMaxOpenConns(n)
	p.SetMaxIdleConns(n)
	p.SetConnMaxIdleTime(5 * time.Minute)
	p.SetConnMaxLifetime(30 * time.Minute)
}

// ping checks that the database answers.
func (db *database) ping(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, db.timeout)
	defer cancel()
	return db.dbError(ctx, db.ro.PingContext(ctx))
}

// Close closes the pools.
func (db *database) Close() error {
	err := db.ro.Close()
	if db.rw != nil {
		if e := db.rw.Close(); err == nil {
			err = e
		}
	}
	return err
}
