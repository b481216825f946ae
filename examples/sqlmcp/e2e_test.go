package main

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/mcp"
)

// Every tool, resource, the completion and the prompt, end to end
// through the Go MCP client, against each database.

func TestEndToEnd_stdio(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b *backend) {
		t.Run("read-only", func(t *testing.T) {
			s := startStdio(t, "-dsn", b.dsn)
			checkTools(t, s.ClientSession, false)
			checkReads(t, s.ClientSession, b)
		})
		t.Run("allow-write", func(t *testing.T) {
			s := startStdio(t, "-dsn", b.dsn, "-allow-write")
			checkTools(t, s.ClientSession, true)
			checkWrites(t, s.ClientSession, b)
		})
	})
}

func TestEndToEnd_streamableHTTP(t *testing.T) {
	b := newBackend(t, "sqlite")
	s := startHTTP(t, "-dsn", b.dsn, "-allow-write")
	checkTools(t, s, true)
	checkReads(t, s, b)
	checkWrites(t, s, b)
}

// checkTools: the tools listed, sql_execute only with -allow-write, each
// with an input and an output schema.
func checkTools(t *testing.T, s *mcp.ClientSession, write bool) {
	ctx := context.Background()
	res, err := s.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		if tool.InputSchema == nil || tool.OutputSchema == nil {
			t.Errorf("%s: input schema %s, output schema %s", tool.Name, tool.InputSchema, tool.OutputSchema)
		}
	}
	want := []string{"describe_table", "list_tables", "sql_query"}
	if write {
		want = append(want, "sql_execute")
	}
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Errorf("tools %v, want %v", names, want)
	}
}

// checkReads drives every reading feature on the unchanged demo.
func checkReads(t *testing.T, s *mcp.ClientSession, b *backend) {
	ctx := context.Background()

	var list tableList
	ok(t, call(t, s, "list_tables", nil), &list)
	got := fmt.Sprint(list.Tables)
	want := "[{customer_totals view schema://table/customer_totals} {customers table schema://table/customers} {orders table schema://table/orders} {products table schema://table/products}]"
	if got != want {
		t.Errorf("list_tables: %s\nwant %s", got, want)
	}

	var info tableInfo
	ok(t, call(t, s, "describe_table", map[string]string{"table": "orders"}), &info)
	checkOrdersInfo(t, &info)
	toolError(t, call(t, s, "describe_table", map[string]string{"table": "order"}),
		`no table or view is named "order"`, "customer_totals, customers, orders, products")

	// A count, a parameter, the text mirror.
	var r queryResult
	res := call(t, s, "sql_query", map[string]any{
		"sql":    "SELECT COUNT(*) AS n, SUM(quantity) AS units FROM orders WHERE status = " + b.db.d.param(1),
		"params": []any{"shipped"},
	})
	ok(t, res, &r)
	if len(r.Rows) != 1 || r.Truncated || !slices.Equal(r.Columns, []string{"n", "units"}) || r.ElapsedMS <= 0 {
		t.Errorf("count: %+v", r)
	}
	var n int
	if err := b.db.rw.QueryRowContext(ctx, "SELECT COUNT(*) FROM orders WHERE status = 'shipped'").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(r.Rows[0][0]) != fmt.Sprint(n) || n == 0 {
		t.Errorf("count %v, the database says %d", r.Rows[0][0], n)
	}
	if tx := text(t, res); !strings.HasPrefix(tx, "n ") || !strings.Contains(tx, fmt.Sprintf("\n%d ", n)) || !strings.Contains(tx, "(1 row; ") {
		t.Errorf("text mirror:\n%s", tx)
	}

	// Typed values: integers, exact decimals, text, dates, NULL.
	ok(t, call(t, s, "sql_query", map[string]any{
		"sql": "SELECT id, name, price, NULL AS empty FROM products WHERE id = " + b.db.d.param(1), "params": []any{7},
	}), &r)
	var price float64
	var pname string
	if err := b.db.rw.QueryRowContext(ctx, "SELECT name, price FROM products WHERE id = 7").Scan(&pname, &price); err != nil {
		t.Fatal(err)
	}
	if len(r.Rows) != 1 || r.Rows[0][0] != float64(7) || r.Rows[0][1] != pname || r.Rows[0][2] != price || r.Rows[0][3] != nil {
		t.Errorf("typed row %#v, want [7 %q %v nil]", r.Rows, pname, price)
	}
	ok(t, call(t, s, "sql_query", map[string]any{"sql": "SELECT created_at FROM customers WHERE id = 1"}), &r)
	if d, _ := r.Rows[0][0].(string); len(d) != len("2024-01-01") || !strings.HasPrefix(d, "2024-") {
		t.Errorf("a date comes as %#v, want YYYY-MM-DD", r.Rows[0][0])
	}

	// The row cap.
	res = call(t, s, "sql_query", map[string]any{"sql": "SELECT id FROM orders ORDER BY id", "max_rows": 5})
	ok(t, res, &r)
	if len(r.Rows) != 5 || !r.Truncated || r.Rows[4][0] != float64(5) {
		t.Errorf("max_rows 5: %d rows, truncated %v", len(r.Rows), r.Truncated)
	}
	if !strings.Contains(text(t, res), "truncated") {
		t.Errorf("the text mirror does not say truncated:\n%s", text(t, res))
	}

	// The database's own errors, with their codes.
	msg := toolError(t, call(t, s, "sql_query", map[string]any{"sql": "SELECT * FROM no_such_table"}), "no_such_table")
	wantCode := map[string]string{"sqlite": "sqlite error 1:", "mariadb": "mysql error 1146 (SQLSTATE 42S02)", "postgres": "postgres error 42P01 (SQLSTATE)"}[b.kind]
	if !strings.Contains(msg, wantCode) {
		t.Errorf("error %q does not carry %q", msg, wantCode)
	}
	toolError(t, call(t, s, "sql_query", map[string]any{"sql": "SELEC 1"}), "refused", "SELEC")
	toolError(t, call(t, s, "sql_query", map[string]any{"sql": "SELECT 1", "params": []any{map[string]any{}}}), "params[0]")

	// Resources and the template.
	rl, err := s.ListResources(ctx, nil)
	if err != nil || len(rl.Resources) != 1 || rl.Resources[0].URI != tablesURI {
		t.Errorf("resources/list: %+v, %v", rl, err)
	}
	tl, err := s.ListResourceTemplates(ctx, nil)
	if err != nil || len(tl.ResourceTemplates) != 1 || tl.ResourceTemplates[0].URITemplate != tableTemplate {
		t.Errorf("resources/templates/list: %+v, %v", tl, err)
	}
	rr, err := s.ReadResource(ctx, tablesURI)
	if err != nil {
		t.Fatal(err)
	}
	var fromResource tableList
	if err := json.Unmarshal([]byte(rr.Contents[0].Text), &fromResource); err != nil || fmt.Sprint(fromResource.Tables) != want {
		t.Errorf("%s: %s (%v)", tablesURI, rr.Contents[0].Text, err)
	}
	rr, err = s.ReadResource(ctx, "schema://table/orders")
	if err != nil {
		t.Fatal(err)
	}
	var fromTemplate tableInfo
	if err := json.Unmarshal([]byte(rr.Contents[0].Text), &fromTemplate); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(fromTemplate) != fmt.Sprint(info) || rr.Contents[0].MIMEType != "application/json" {
		t.Errorf("schema://table/orders is not describe_table's answer:\n%+v\n%+v", fromTemplate, info)
	}
	// -32002 up to 2025-11-25, -32602 under 2026-07-28 (the client's default).
	notFound := codec.CodeResourceNotFound
	if mcp.IsStatelessVersion(s.ProtocolVersion()) {
		notFound = codec.CodeInvalidParams
	}
	if _, err := s.ReadResource(ctx, "schema://table/nope"); rpcCode(err) != notFound {
		t.Errorf("an unknown table's resource under %s: %v, want %d", s.ProtocolVersion(), err, notFound)
	}

	// Completion of {name}.
	for prefix, want := range map[string][]string{"cu": {"customer_totals", "customers"}, "OR": {"orders"}, "x": {}} {
		c, err := s.Complete(ctx, &mcp.CompleteParams{
			Ref:      &mcp.CompleteRef{Type: mcp.RefResource, URI: tableTemplate},
			Argument: mcp.CompleteArgument{Name: "name", Value: prefix},
		})
		if err != nil || !slices.Equal(c.Completion.Values, want) {
			t.Errorf("complete %q: %+v, %v; want %v", prefix, c, err, want)
		}
	}

	// The prompt embeds the tables its statement names.
	stmt := "SELECT c.name, SUM(o.quantity) FROM orders o JOIN Customers c ON c.id = o.customer_id GROUP BY c.name"
	p, err := s.GetPrompt(ctx, "explain_query", map[string]string{"sql": stmt})
	if err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, m := range p.Messages[:len(p.Messages)-1] {
		er, isER := m.Content.(*mcp.EmbeddedResource)
		if !isER {
			t.Fatalf("message %T, want an embedded resource", m.Content)
		}
		uris = append(uris, er.Resource.URI)
	}
	if !slices.Equal(uris, []string{"schema://table/orders", "schema://table/customers"}) {
		t.Errorf("explain_query embeds %v", uris)
	}
	last, _ := p.Messages[len(p.Messages)-1].Content.(*mcp.TextContent)
	if last == nil || !strings.Contains(last.Text, stmt) {
		t.Errorf("explain_query's last message: %+v", p.Messages[len(p.Messages)-1].Content)
	}
	if _, err := s.GetPrompt(ctx, "explain_query", nil); rpcCode(err) != codec.CodeInvalidParams {
		t.Errorf("explain_query without sql: %v, want -32602", err)
	}
}

// checkOrdersInfo checks describe_table's answer for the demo's orders.
func checkOrdersInfo(t *testing.T, info *tableInfo) {
	t.Helper()
	var cols []string
	for _, c := range info.Columns {
		cols = append(cols, c.Name)
		if c.Nullable || c.Type == "" {
			t.Errorf("column %+v: want a type and NOT NULL", c)
		}
	}
	if !slices.Equal(cols, []string{"id", "customer_id", "product_id", "quantity", "status", "ordered_at"}) {
		t.Errorf("columns %v", cols)
	}
	if !slices.Equal(info.PrimaryKey, []string{"id"}) || info.Kind != "table" || info.Name != "orders" {
		t.Errorf("orders: %+v", info)
	}
	var fks []string
	for _, fk := range info.ForeignKeys {
		fks = append(fks, fmt.Sprintf("%v->%s%v", fk.Columns, fk.RefTable, fk.RefColumns))
	}
	slices.Sort(fks)
	if !slices.Equal(fks, []string{"[customer_id]->customers[id]", "[product_id]->products[id]"}) {
		t.Errorf("foreign keys %v", fks)
	}
	var idx []string
	for _, ix := range info.Indexes {
		idx = append(idx, fmt.Sprint(ix.Columns))
	}
	if !slices.Contains(idx, "[customer_id]") || !slices.Contains(idx, "[product_id ordered_at]") {
		t.Errorf("indexes %+v", info.Indexes)
	}
}

// checkWrites: sql_execute writes and says how many rows; sql_query
// still refuses to.
func checkWrites(t *testing.T, s *mcp.ClientSession, b *backend) {
	ctx := context.Background()
	p := b.db.d.param
	var e executeResult
	ok(t, call(t, s, "sql_execute", map[string]any{
		"sql":    fmt.Sprintf("INSERT INTO customers (id, name, email, country, created_at) VALUES (%s, %s, %s, %s, %s)", p(1), p(2), p(3), p(4), p(5)),
		"params": []any{1000, "Hedy Lamarr", "hedy@example.com", "AT", "2025-06-01"},
	}), &e)
	if e.RowsAffected != 1 {
		t.Errorf("insert: %+v", e)
	}
	ok(t, call(t, s, "sql_execute", map[string]any{"sql": "UPDATE products SET stock = stock + 1 WHERE category = 'mugs'"}), &e)
	var mugs int64
	if err := b.db.rw.QueryRowContext(ctx, "SELECT COUNT(*) FROM products WHERE category = 'mugs'").Scan(&mugs); err != nil {
		t.Fatal(err)
	}
	if e.RowsAffected != mugs || mugs == 0 {
		t.Errorf("update: %d rows affected, %d mugs", e.RowsAffected, mugs)
	}
	var r queryResult
	ok(t, call(t, s, "sql_query", map[string]any{"sql": "SELECT name FROM customers WHERE id = 1000"}), &r)
	if len(r.Rows) != 1 || r.Rows[0][0] != "Hedy Lamarr" {
		t.Errorf("the insert is not seen: %+v", r)
	}
	toolError(t, call(t, s, "sql_query", map[string]any{"sql": "DELETE FROM customers WHERE id = 1000"}), "refused", "DELETE")
	toolError(t, call(t, s, "sql_execute", map[string]any{"sql": "INSERT INTO customers (id) VALUES (1000)"}), "error")
	toolError(t, call(t, s, "sql_execute", map[string]any{"sql": "DELETE FROM orders; DELETE FROM customers"}), "refused", "2 statements")
	ok(t, call(t, s, "sql_execute", map[string]any{"sql": "DELETE FROM customers WHERE id = 1000"}), &e)
	if e.RowsAffected != 1 {
		t.Errorf("delete: %+v", e)
	}
}
