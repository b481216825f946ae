package main

import (
	"context"
	"fmt"

	"github.com/mcpwire/mcpwire/mcp"
)

// The tools: sql_query, list_tables, describe_table, and sql_execute
// with -allow-write. Their schemas come from the Go types below; what
// goes wrong in the database comes back as a tool error (isError) with
// the database's message, for the model to act on.

type queryArgs struct {
	SQL     string `json:"sql" jsonschema:"one read-only statement: SELECT, WITH … SELECT, VALUES, TABLE, EXPLAIN, SHOW or DESCRIBE"`
	Params  []any  `json:"params,omitempty" jsonschema:"values bound to the statement's placeholders, in order (strings, numbers, booleans, null)"`
	MaxRows int    `json:"max_rows,omitempty" jsonschema:"the most rows to return; past it the result is marked truncated"`
}

type executeArgs struct {
	SQL    string `json:"sql" jsonschema:"one statement, which may write: INSERT, UPDATE, DELETE, CREATE…"`
	Params []any  `json:"params,omitempty" jsonschema:"values bound to the statement's placeholders, in order (strings, numbers, booleans, null)"`
}

type describeArgs struct {
	Table string `json:"table" jsonschema:"the table's or view's name, as list_tables gives it"`
}

type tableList struct {
	Tables []tableEntry `json:"tables"`
}

// limits are the bounds the tools keep.
type limits struct {
	defaultRows, maxRows int
}

var falseHint = new(bool)

// addTools registers the tools on srv.
func addTools(srv *mcp.Server, db *database, l limits) error {
	readOnly := &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: falseHint}
	err := mcp.AddTool(srv, &mcp.Tool{
		Name:  "sql_query",
		Title: "Query the database (read-only)",
		Description: fmt.Sprintf("Runs one read-only SQL statement on the %s database and returns its rows. "+
			"It runs in a read-only transaction that is rolled back, under a timeout of %v; a statement that would write is refused. "+
			"Parameters go in params and are referred to as %s. At most max_rows rows are returned (default %d, at most %d); "+
			"a result with more is marked truncated. Use list_tables and describe_table to learn the schema first.",
			db.d.name, db.timeout, db.d.placeholders, l.defaultRows, l.maxRows),
		Annotations: readOnly,
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in queryArgs) (*mcp.CallToolResult, *queryResult, error) {
		n := in.MaxRows
		if n <= 0 {
			n = l.defaultRows
		}
		r, err := db.query(ctx, in.SQL, in.Params, min(n, l.maxRows))
		if err != nil {
			return nil, nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: textTable(r)}}}, r, nil
	})
	if err != nil {
		return err
	}
	err = mcp.AddTool(srv, &mcp.Tool{
		Name:        "list_tables",
		Title:       "List the tables",
		Description: fmt.Sprintf("Lists the tables and views of the %s database, each with the URI of the resource that describes it.", db.d.name),
		Annotations: readOnly,
	}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, *tableList, error) {
		ts, err := db.tables(ctx)
		if err != nil {
			return nil, nil, err
		}
		return nil, &tableList{Tables: ts}, nil
	})
	if err != nil {
		return err
	}
	err = mcp.AddTool(srv, &mcp.Tool{
		Name:        "describe_table",
		Title:       "Describe a table",
		Description: "Describes a table or view: its columns with their types, nullability and defaults, its primary key, foreign keys and indexes.",
		Annotations: readOnly,
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in describeArgs) (*mcp.CallToolResult, *tableInfo, error) {
		info, err := db.describe(ctx, in.Table)
		if err != nil {
			return nil, nil, err
		}
		return nil, info, nil
	})
	if err != nil || db.rw == nil {
		return err
	}
	return mcp.AddTool(srv, &mcp.Tool{
		Name:  "sql_execute",
		Title: "Change the database",
		Description: fmt.Sprintf("Runs one SQL statement that may write (INSERT, UPDATE, DELETE, DDL) on the %s database, "+
			"in a transaction of its own that is committed, under a timeout of %v, and returns the number of rows it affected. "+
			"Parameters go in params and are referred to as %s.", db.d.name, db.timeout, db.d.placeholders),
		Annotations: &mcp.ToolAnnotations{OpenWorldHint: falseHint},
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in executeArgs) (*mcp.CallToolResult, *executeResult, error) {
		r, err := db.execute(ctx, in.SQL, in.Params)
		if err != nil {
			return nil, nil, err
		}
		return nil, r, nil
	})
}
