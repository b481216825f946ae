package mcp_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/mcp"
)

// A typed tool whose arguments or output are no JSON object fails where it
// is registered, with an error that names the tool, the schema, the Go
// type and what to use instead; the server keeps what it served before.
func TestAddTool_notAnObjectFailsWhereRegistered(t *testing.T) {
	srv := greetServer(t)
	type args struct {
		N int `json:"n"`
	}
	cases := []struct {
		name string
		add  func() error
		want []string
	}{
		{"output int", func() error {
			return mcp.AddTool(srv, &mcp.Tool{Name: "greet"}, func(context.Context, *mcp.CallToolRequest, args) (*mcp.CallToolResult, int, error) {
				return nil, 1, nil
			})
		}, []string{`tool "greet"`, "output schema", "Go type int", "struct"}},
		{"input []string", func() error {
			return mcp.AddTool(srv, &mcp.Tool{Name: "greet"}, func(context.Context, *mcp.CallToolRequest, []string) (*mcp.CallToolResult, any, error) {
				return nil, nil, nil
			})
		}, []string{`tool "greet"`, "input schema", "Go type []string", "struct"}},
		{"output *float64", func() error {
			return mcp.AddTool(srv, &mcp.Tool{Name: "greet"}, func(context.Context, *mcp.CallToolRequest, args) (*mcp.CallToolResult, *float64, error) {
				return nil, nil, nil
			})
		}, []string{`tool "greet"`, "output schema", "Go type *float64", "struct"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.add()
			if err == nil {
				t.Fatal("registered")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
	cl := newClient(t, srv)
	cl.initialize("2025-06-18")
	if r := callTool(cl, "greet", map[string]any{"name": "Ada", "polite": nil}); r.IsError || !strings.Contains(string(r.StructuredContent), "Hello, Ada") {
		t.Errorf("greet after the failed replacements: %+v", r)
	}
}
