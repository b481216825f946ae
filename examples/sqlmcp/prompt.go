package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/mcp"
)

// The prompt explain_query {sql}: the structure of every table the
// statement names, embedded as the schema://table/{name} resources, then
// the request to explain it.

// addPrompt registers explain_query on srv.
func addPrompt(srv *mcp.Server, db *database) error {
	return srv.AddPrompt(&mcp.Prompt{
		Name:        "explain_query",
		Title:       "Explain a query",
		Description: "Explains what a SQL statement does, clause by clause, with the structure of the tables it uses, and how it could be better or faster.",
		Arguments: []*mcp.PromptArgument{{
			Name: "sql", Title: "SQL", Description: "the statement to explain", Required: true,
		}},
	}, func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		stmt := req.Params.Arguments["sql"]
		tables, err := db.tables(ctx)
		if err != nil {
			return nil, codec.NewError(codec.CodeInternalError, err.Error())
		}
		var msgs []*mcp.PromptMessage
		for _, name := range tablesNamed(stmt, db.d.lex, tables) {
			info, err := db.describe(ctx, name)
			if err != nil {
				return nil, codec.NewError(codec.CodeInternalError, err.Error())
			}
			b, err := json.MarshalIndent(info, "", "  ")
			if err != nil {
				return nil, err
			}
			msgs = append(msgs, &mcp.PromptMessage{Role: "user", Content: &mcp.EmbeddedResource{
				Resource: &mcp.ResourceContents{URI: tableURI(name), MIMEType: "application/json", Text: string(b)},
			}})
		}
		var text strings.Builder
		fmt.Fprintf(&text, "Explain what this SQL statement does on the %s database, clause by clause", db.d.name)
		if len(msgs) > 0 {
			text.WriteString(", using the structure of the tables above")
		}
		text.WriteString(". Point out mistakes, and say how it could be clearer or faster (indexes it could use or lacks).\n\n```sql\n")
		text.WriteString(strings.TrimSpace(stmt))
		text.WriteString("\n```")
		msgs = append(msgs, &mcp.PromptMessage{Role: "user", Content: &mcp.TextContent{Text: text.String()}})
		return &mcp.GetPromptResult{Description: "Explain a SQL statement", Messages: msgs}, nil
	})
}

// tablesNamed returns the tables among list that stmt names, in the
// order it first names them: any word or quoted identifier equal to a
// table's name (regardless of case), or to the last part of a qualified
// name. Text that does not lex names none.
func tablesNamed(stmt string, o lexOptions, list []tableEntry) []string {
	sts, err := splitStatements(stmt, o)
	if err != nil {
		return nil
	}
	byName := map[string]string{}
	for _, t := range list {
		byName[strings.ToUpper(t.Name)] = t.Name
	}
	var out []string
	seen := map[string]bool{}
	for _, st := range sts {
		for _, tok := range st {
			if tok.kind != tokWord && tok.kind != tokQuoted {
				continue
			}
			if name, ok := byName[strings.ToUpper(tok.text)]; ok && !seen[name] {
				seen[name] = true
				out = append(out, name)
			}
		}
	}
	return out
}
