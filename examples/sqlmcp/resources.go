package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/mcp"
)

// The tables' structure as resources: schema://tables lists them, and
// the template schema://table/{name} describes each (the same JSON as
// describe_table), with completion of {name}.

const (
	tablesURI     = "schema://tables"
	tableTemplate = "schema://table/{name}"
)

// addResources registers the resources, the template and the
// completion of its {name} on srv.
func addResources(srv *mcp.Server, db *database) error {
	err := srv.AddResource(&mcp.Resource{
		URI:         tablesURI,
		Name:        "tables",
		Title:       "The tables",
		Description: fmt.Sprintf("The tables and views of the %s database, each with the URI of its description.", db.d.name),
		MIMEType:    "application/json",
	}, func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		ts, err := db.tables(ctx)
		if err != nil {
			return nil, resourceError(err)
		}
		return jsonContents(req.Params.URI, &tableList{Tables: ts})
	})
	if err != nil {
		return err
	}
	return srv.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: tableTemplate,
		Name:        "table",
		Title:       "A table's structure",
		Description: "A table's or view's columns (names, types, nullability, defaults), primary key, foreign keys and indexes.",
		MIMEType:    "application/json",
	}, func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		info, err := db.describe(ctx, req.Params.Vars["name"])
		if err != nil {
			return nil, resourceError(err)
		}
		return jsonContents(req.Params.URI, info)
	})
}

// jsonContents is a resource holding v as JSON.
func jsonContents(uri string, v any) (*mcp.ReadResourceResult, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, err
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "application/json", Text: string(b)}}}, nil
}

// resourceError is the answer to a read that failed: an unknown table
// is not found (-32002), a timeout is -32012, and the database's other
// errors are -32603 with the database's message.
func resourceError(err error) error {
	var ute *unknownTableError
	var te *timeoutError
	switch {
	case errors.As(err, &ute):
		return mcp.ErrResourceNotFound
	case errors.As(err, &te):
		return codec.NewError(codec.CodeRequestTimeout, err.Error())
	}
	return codec.NewError(codec.CodeInternalError, err.Error())
}

// completer completes the {name} of schema://table/{name} with the
// tables whose names start with what was typed (regardless of case).
func completer(db *database) func(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	return func(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
		p := req.Params
		res := &mcp.CompleteResult{Completion: mcp.CompletionValues{Values: []string{}}}
		if p.Ref.Type != mcp.RefResource || p.Ref.URI != tableTemplate || p.Argument.Name != "name" {
			return res, nil
		}
		ts, err := db.tables(ctx)
		if err != nil {
			return nil, resourceError(err)
		}
		prefix := strings.ToLower(p.Argument.Value)
		for _, t := range ts {
			if strings.HasPrefix(strings.ToLower(t.Name), prefix) {
				res.Completion.Values = append(res.Completion.Values, t.Name)
			}
		}
		sort.Strings(res.Completion.Values)
		res.Completion.Total = len(res.Completion.Values)
		return res, nil
	}
}

// escapeURIVar encodes s as RFC 6570 expands a simple variable: every
// byte but the unreserved ones percent-encoded.
func escapeURIVar(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~' {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", c)
	}
	return b.String()
}
