package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// The demo database: a small shop (customers, products, orders, and a
// view of what each customer spent), the same rows every time, written
// in SQL that SQLite, MySQL/MariaDB and PostgreSQL all take.

// demoSchema creates the demo's tables, view and indexes.
var demoSchema = []string{
	`CREATE TABLE customers (
  id INTEGER NOT NULL PRIMARY KEY,
  name VARCHAR(100) NOT NULL,
  email VARCHAR(200) NOT NULL UNIQUE,
  country CHAR(2) NOT NULL,
  created_at DATE NOT NULL
)`,
	`CREATE TABLE products (
  id INTEGER NOT NULL PRIMARY KEY,
  name VARCHAR(100) NOT NULL,
  category VARCHAR(50) NOT NULL,
  price DECIMAL(10,2) NOT NULL,
  stock INTEGER NOT NULL DEFAULT 0
)`,
	`CREATE TABLE orders (
  id INTEGER NOT NULL PRIMARY KEY,
  customer_id INTEGER NOT NULL,
  product_id INTEGER NOT NULL,
  quantity INTEGER NOT NULL,
  status VARCHAR(20) NOT NULL,
  ordered_at DATE NOT NULL,
  CONSTRAINT orders_customer_fk FOREIGN KEY (customer_id) REFERENCES customers (id),
  CONSTRAINT orders_product_fk FOREIGN KEY (product_id) REFERENCES products (id)
)`,
	`CREATE INDEX orders_customer_idx ON orders (customer_id)`,
	`CREATE INDEX orders_product_idx ON orders (product_id, ordered_at)`,
	`CREATE VIEW customer_totals AS
SELECT c.id AS customer_id, c.name, COUNT(o.id) AS orders, COALESCE(SUM(o.quantity * p.price), 0) AS spent
FROM customers c
LEFT JOIN orders o ON o.customer_id = c.id
LEFT JOIN products p ON p.id = o.product_id
GROUP BY c.id, c.name`,
}

// Sizes of the demo.
const (
	demoCustomers = 60
	demoProducts  = 40
	demoOrders    = 400
)

// seedDemo creates the demo's tables in db, of dialect d, and fills
// them, in one transaction where the database allows.
func seedDemo(ctx context.Context, db *sql.DB, d *dialect) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, s := range demoSchema {
		if _, err := tx.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("%s: %w", strings.SplitN(s, "\n", 2)[0], err)
		}
	}
	r := rand.New(rand.NewPCG(11, 2026))
	first := []string{"Ada", "Alan", "Grace", "Edsger", "Barbara", "Donald", "Frances", "Ken", "Margaret", "Niklaus", "Radia", "Tim"}
	last := []string{"Lovelace", "Turing", "Hopper", "Dijkstra", "Liskov", "Knuth", "Allen", "Thompson", "Hamilton", "Wirth", "Perlman", "Berners-Lee"}
	countries := []string{"GB", "US", "NL", "FR", "DE", "CH", "JP", "BR"}
	day0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	date := func(max int) string { return day0.AddDate(0, 0, r.IntN(max)).Format(time.DateOnly) }
	insert := func(table string, cols ...string) (*sql.Stmt, error) {
		ps := make([]string, len(cols))
		for i := range cols {
			ps[i] = d.param(i + 1)
		}
		return tx.PrepareContext(ctx, fmt.Sprintf("INSERT INTO %s (%s) VALUES (%s)", table, strings.Join(cols, ", "), strings.Join(ps, ", ")))
	}
	rows := []struct {
		table string
		cols  []string
		n     int
		row   func(i int) []any
	}{
		{"customers", []string{"id", "name", "email", "country", "created_at"}, demoCustomers, func(i int) []any {
			f, l := first[r.IntN(len(first))], last[r.IntN(len(last))]
			return []any{i, f + " " + l, fmt.Sprintf("%s.%s.%d@example.com", strings.ToLower(f), strings.ToLower(l), i), countries[r.IntN(len(countries))], date(365)}
		}},
		{"products", []string{"id", "name", "category", "price", "stock"}, demoProducts, func(i int) []any {
			cats := []string{"books", "keyboards", "mugs", "stickers", "cables"}
			c := cats[i%len(cats)]
			return []any{i, fmt.Sprintf("%s #%d", strings.TrimSuffix(c, "s"), i), c, fmt.Sprintf("%d.%02d", 2+r.IntN(120), r.IntN(100)), r.IntN(500)}
		}},
		{"orders", []string{"id", "customer_id", "product_id", "quantity", "status", "ordered_at"}, demoOrders, func(i int) []any {
			statuses := []string{"paid", "paid", "shipped", "shipped", "shipped", "cancelled", "refunded"}
			return []any{i, 1 + r.IntN(demoCustomers), 1 + r.IntN(demoProducts), 1 + r.IntN(5), statuses[r.IntN(len(statuses))], date(400)}
		}},
	}
	for _, t := range rows {
		st, err := insert(t.table, t.cols...)
		if err != nil {
			return err
		}
		for i := 1; i <= t.n; i++ {
			if _, err := st.ExecContext(ctx, t.row(i)...); err != nil {
				st.Close()
				return fmt.Errorf("insert into %s: %w", t.table, err)
			}
		}
		st.Close()
	}
	return tx.Commit()
}

// demoPath returns the demo database's file, creating it first if it is
// not there: in the user's cache directory, else the temporary one.
func demoPath(ctx context.Context) (string, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		dir = os.TempDir()
	}
	dir = filepath.Join(dir, "mcpwire-sqlmcp")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	path := filepath.Join(dir, "demo.db")
	if _, err := os.Stat(path); err == nil || !errors.Is(err, fs.ErrNotExist) {
		return path, err
	}
	// Built aside and renamed into place: a run cut short leaves no
	// half-filled demo behind.
	f, err := os.CreateTemp(dir, "demo-*.db")
	if err != nil {
		return "", err
	}
	tmp := f.Name()
	f.Close()
	defer os.Remove(tmp)
	c, err := sqliteConnector(tmp, "mode=rw", "_pragma=foreign_keys(1)")
	if err != nil {
		return "", err
	}
	db := sql.OpenDB(c)
	err = seedDemo(ctx, db, sqliteDialect)
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", fmt.Errorf("creating the demo database: %w", err)
	}
	return path, os.Rename(tmp, path)
}
