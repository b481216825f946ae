package mcp_test

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/mcp"
)

func noResult(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return &mcp.CallToolResult{}, nil
}

// A tool's x-mcp-header parameters, at any depth of properties, are what
// Server.ParamHeaders returns; a tool whose annotations a client would
// have to reject is refused by AddTool.
func TestServer_ParamHeaders(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	if err := srv.AddTool(&mcp.Tool{Name: "plain"}, noResult); err != nil {
		t.Fatal(err)
	}
	if got := srv.ParamHeaders("plain"); got != nil {
		t.Fatalf("a tool without any, on a server without any: %+v", got)
	}
	schema := `{"type":"object","properties":{` +
		`"region":{"type":"string","x-mcp-header":"Region"},` +
		`"query":{"type":"string"},` +
		`"opts":{"type":"object","properties":{"tenant":{"type":"integer","x-mcp-header":"Tenant-Id"}}}}}`
	if err := srv.AddTool(&mcp.Tool{Name: "sql", InputSchema: json.RawMessage(schema)}, noResult); err != nil {
		t.Fatal(err)
	}
	want := []mcp.ParamHeader{{Name: "Region", Path: []string{"region"}}, {Name: "Tenant-Id", Path: []string{"opts", "tenant"}}}
	if got := srv.ParamHeaders("sql"); !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	if got := srv.ParamHeaders("none"); got != nil {
		t.Fatalf("an unknown tool: %+v", got)
	}
	if got := srv.ParamHeaders("plain"); got != nil {
		t.Fatalf("a tool without any: %+v", got)
	}
	srv.RemoveTools("sql")
	if got := srv.ParamHeaders("sql"); got != nil {
		t.Fatalf("a removed tool: %+v", got)
	}
	if err := srv.AddTool(&mcp.Tool{Name: "sql", InputSchema: json.RawMessage(schema)}, noResult); err != nil {
		t.Fatal(err)
	}
	if got := srv.ParamHeaders("sql"); !reflect.DeepEqual(got, want) {
		t.Fatalf("added again: got %+v, want %+v", got, want)
	}
	for _, bad := range []struct{ props, why string }{
		{`"a":{"type":"string","x-mcp-header":"A B"}`, "HTTP token"},
		{`"a":{"type":"string","x-mcp-header":""}`, "HTTP token"},
		{`"a":{"type":"string","x-mcp-header":7}`, "HTTP token"},
		{`"a":{"type":"string","x-mcp-header":"X"},"b":{"type":"string","x-mcp-header":"x"}`, "twice"},
		{`"a":{"type":"object","x-mcp-header":"X"}`, "not a string, integer or boolean"},
	} {
		err := srv.AddTool(&mcp.Tool{Name: "bad", InputSchema: json.RawMessage(`{"type":"object","properties":{` + bad.props + `}}`)}, noResult)
		if err == nil || !strings.Contains(err.Error(), bad.why) {
			t.Errorf("%s: %v, want an error saying %q", bad.props, err, bad.why)
		}
	}
}
