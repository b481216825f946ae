package main

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
)

// The tables' structure, read from the database's catalogue the same
// way for every dialect (dialect.go holds the queries).

// tableEntry is one table or view in a listing.
type tableEntry struct {
	Name string `json:"name"`
	Kind string `json:"kind" jsonschema:"table or view"`
	URI  string `json:"uri" jsonschema:"the resource describing it"`
}

// tableInfo is the structure of one table or view.
type tableInfo struct {
	Name        string       `json:"name"`
	Kind        string       `json:"kind" jsonschema:"table or view"`
	Columns     []columnInfo `json:"columns"`
	PrimaryKey  []string     `json:"primary_key" jsonschema:"the primary key's columns, in order"`
	ForeignKeys []foreignKey `json:"foreign_keys"`
	Indexes     []indexInfo  `json:"indexes"`
}

type columnInfo struct {
	Name     string  `json:"name"`
	Type     string  `json:"type"`
	Nullable bool    `json:"nullable"`
	Default  *string `json:"default,omitempty" jsonschema:"the default's SQL expression"`
}

type foreignKey struct {
	Name       string   `json:"name"`
	Columns    []string `json:"columns"`
	RefTable   string   `json:"references_table"`
	RefColumns []string `json:"references_columns"`
}

type indexInfo struct {
	Name    string   `json:"name"`
	Unique  bool     `json:"unique"`
	Columns []string `json:"columns" jsonschema:"the indexed columns, in order; (expression) for an expression"`
}

// tableURI is the resource URI of the table name.
func tableURI(name string) string { return "schema://table/" + escapeURIVar(name) }

// tables lists the tables and views, sorted by name (byte order).
func (db *database) tables(ctx context.Context) ([]tableEntry, error) {
	ctx, cancel := context.WithTimeout(ctx, db.timeout)
	defer cancel()
	rows, err := db.ro.QueryContext(ctx, db.d.tablesSQL)
	if err != nil {
		return nil, db.dbError(ctx, err)
	}
	defer rows.Close()
	out := []tableEntry{}
	for rows.Next() {
		var name, kind string
		if err := rows.Scan(&name, &kind); err != nil {
			return nil, db.dbError(ctx, err)
		}
		k := "table"
		if strings.Contains(strings.ToUpper(kind), "VIEW") {
			k = "view"
		}
		out = append(out, tableEntry{Name: name, Kind: k, URI: tableURI(name)})
	}
	if err := rows.Err(); err != nil {
		return nil, db.dbError(ctx, err)
	}
	// In byte order: the databases' collations differ.
	slices.SortFunc(out, func(a, b tableEntry) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// unknownTableError says a table does not exist and which ones do.
type unknownTableError struct {
	name      string
	available []string
}

func (e *unknownTableError) Error() string {
	if len(e.available) == 0 {
		return fmt.Sprintf("no table or view is named %q: the database has none", e.name)
	}
	return fmt.Sprintf("no table or view is named %q; the available ones are: %s", e.name, strings.Join(e.available, ", "))
}

// findTable returns the listed table named name: exactly, else the only
// one named so regardless of case.
func (db *database) findTable(ctx context.Context, name string) (tableEntry, error) {
	list, err := db.tables(ctx)
	if err != nil {
		return tableEntry{}, err
	}
	var folded []tableEntry
	names := make([]string, len(list))
	for i, t := range list {
		if t.Name == name {
			return t, nil
		}
		if strings.EqualFold(t.Name, name) {
			folded = append(folded, t)
		}
		names[i] = t.Name
	}
	if len(folded) == 1 {
		return folded[0], nil
	}
	return tableEntry{}, &unknownTableError{name: name, available: names}
}

// describe reads the structure of the table named name (see findTable),
// its catalogue queries bound by the statement timeout together.
func (db *database) describe(ctx context.Context, name string) (*tableInfo, error) {
	ctx, cancel := context.WithTimeout(ctx, db.timeout)
	defer cancel()
	t, err := db.findTable(ctx, name)
	if err != nil {
		return nil, err
	}
	info := &tableInfo{Name: t.Name, Kind: t.Kind, Columns: []columnInfo{}, PrimaryKey: []string{}, ForeignKeys: []foreignKey{}, Indexes: []indexInfo{}}
	err = db.each(ctx, db.d.columnsSQL, t.Name, func(rows *sql.Rows) error {
		var c columnInfo
		var def sql.NullString
		if err := rows.Scan(&c.Name, &c.Type, &c.Nullable, &def); err != nil {
			return err
		}
		if def.Valid {
			c.Default = &def.String
		}
		info.Columns = append(info.Columns, c)
		return nil
	})
	if err != nil {
		return nil, err
	}
	err = db.each(ctx, db.d.keysSQL, t.Name, func(rows *sql.Rows) error {
		var kind, name, col string
		var refTable, refCol sql.NullString
		var ord any
		if err := rows.Scan(&kind, &name, &col, &refTable, &refCol, &ord); err != nil {
			return err
		}
		if kind == "p" {
			info.PrimaryKey = append(info.PrimaryKey, col)
			return nil
		}
		n := len(info.ForeignKeys)
		if n == 0 || info.ForeignKeys[n-1].Name != name {
			info.ForeignKeys = append(info.ForeignKeys, foreignKey{Name: name, RefTable: refTable.String})
			n++
		}
		fk := &info.ForeignKeys[n-1]
		fk.Columns = append(fk.Columns, col)
		fk.RefColumns = append(fk.RefColumns, refCol.String)
		return nil
	})
	if err != nil {
		return nil, err
	}
	err = db.each(ctx, db.d.indexesSQL, t.Name, func(rows *sql.Rows) error {
		var name string
		var unique bool
		var col sql.NullString
		if err := rows.Scan(&name, &unique, &col); err != nil {
			return err
		}
		if !col.Valid {
			col.String = "(expression)"
		}
		n := len(info.Indexes)
		if n == 0 || info.Indexes[n-1].Name != name {
			info.Indexes = append(info.Indexes, indexInfo{Name: name, Unique: unique})
			n++
		}
		info.Indexes[n-1].Columns = append(info.Indexes[n-1].Columns, col.String)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return info, nil
}

// each runs the catalogue query q with the table's name as its
// parameter and calls f on each row.
func (db *database) each(ctx context.Context, q, table string, f func(*sql.Rows) error) error {
	rows, err := db.ro.QueryContext(ctx, q, table)
	if err != nil {
		return db.dbError(ctx, err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := f(rows); err != nil {
			return db.dbError(ctx, err)
		}
	}
	return db.dbError(ctx, rows.Err())
}
