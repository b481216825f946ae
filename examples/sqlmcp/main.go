// Command sqlmcp is an MCP server that lets an assistant query a SQL
// database, safely: a model gets read-only queries, the tables'
// structure as tools and resources, and writes only when the server is
// started with -allow-write.
//
//	sqlmcp                                        # the demo SQLite database, over stdio
//	sqlmcp -dsn sqlite:shop.db                    # a SQLite file
//	sqlmcp -dsn 'postgres://app:secret@127.0.0.1:5432/shop'
//	sqlmcp -dsn 'mysql://app:secret@127.0.0.1:3306/shop'  # MySQL or MariaDB
//	sqlmcp -listen http://127.0.0.1:8080          # Streamable HTTP at /mcp
//	sqlmcp -allow-write                           # adds sql_execute
//
// Tools: sql_query {sql, params?, max_rows?} runs one statement that
// reads, in a read-only transaction on a read-only connection, under a
// timeout, and returns at most max_rows rows ({columns, rows, truncated,
// elapsed_ms}, mirrored as a text table); list_tables; describe_table
// {table}; and, with -allow-write, sql_execute {sql, params?}, which
// returns the rows affected. Resources: schema://tables and the template
// schema://table/{name}, whose {name} completes. Prompt: explain_query
// {sql}, with the tables it names embedded.
//
// The DSN may come from the environment, SQLMCP_DSN, rather than the
// command line (where other users of the machine could read it).
// Without either, it creates a small demo database (customers, products,
// orders) in the user's cache directory, so that `go run .` just works.
// It logs to stderr, never the DSN's password.
package main

import (
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
