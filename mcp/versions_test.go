package mcp_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/mcp"
)

// versionsServer has an item of every kind with every field some version
// lacks: titles, icons, _meta, annotations with lastModified, an output
// schema, a tool execution, and a tool answering with every content type.
func versionsServer(t *testing.T) *mcp.Server {
	t.Helper()
	icons := []mcp.Icon{{Src: "https://example.com/i.png", MIMEType: "image/png"}}
	ann := &mcp.Annotations{Audience: []mcp.Role{mcp.RoleUser}, LastModified: "2025-01-12T15:00:58Z"}
	onlyModified := &mcp.Annotations{LastModified: "2025-01-12T15:00:58Z"}
	meta := mcp.Meta{"k": "v"}
	size := int64(12)
	srv := mcp.NewServer(&mcp.Implementation{Name: "v", Title: "V", Version: "1", Description: "d", WebsiteURL: "https://example.com", Icons: icons},
		&mcp.ServerOptions{CompletionHandler: func(context.Context, *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
			return &mcp.CompleteResult{}, nil
		}})
	type out struct {
		N int `json:"n"`
	}
	must(t, mcp.AddTool(srv, &mcp.Tool{Name: "structured", Title: "Structured", Icons: icons, Meta: meta,
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}, Execution: &mcp.ToolExecution{TaskSupport: "optional"}},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, out, error) {
			return nil, out{7}, nil
		}))
	must(t, srv.AddTool(&mcp.Tool{Name: "blocks"},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{
				&mcp.TextContent{Text: "plain"},
				&mcp.TextContent{Text: "t", Annotations: ann, Meta: meta},
				&mcp.ImageContent{Data: []byte("i"), MIMEType: "image/png", Annotations: onlyModified},
				&mcp.AudioContent{Data: []byte("au"), MIMEType: "audio/wav", Meta: meta},
				&mcp.ResourceLink{URI: "test://r", Name: "r", Title: "R", MIMEType: "text/plain", Size: &size, Icons: icons, Meta: meta},
				&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "test://e", Text: "e", Meta: meta}, Annotations: ann},
			}}, nil
		}))
	must(t, srv.AddResource(&mcp.Resource{URI: "test://r", Name: "r", Title: "R", Icons: icons, Annotations: ann, Meta: meta},
		func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{Text: "x", Meta: meta}}}, nil
		}))
	must(t, srv.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "test://t/{id}", Name: "t", Title: "T", Icons: icons, Annotations: onlyModified, Meta: meta},
		func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{Text: "y"}}}, nil
		}))
	must(t, srv.AddPrompt(&mcp.Prompt{Name: "p", Title: "P", Icons: icons, Meta: meta, Arguments: []*mcp.PromptArgument{{Name: "a", Title: "A"}}},
		func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{
				{Role: mcp.RoleUser, Content: &mcp.TextContent{Text: "hi"}},
				{Role: mcp.RoleUser, Content: &mcp.ResourceLink{URI: "test://r", Name: "r"}},
			}}, nil
		}))
	return srv
}

// TestFieldsByVersion asks one server the same things under each version
// and checks every answer byte for byte against
// testdata/versions/<version>.txt (rewritten with -update): what a
// version's schema lacks is left out, what it has is kept. Each version's
// lists are asked twice, around another version's, so a cached page of
// one version never answers another.
func TestFieldsByVersion(t *testing.T) {
	srv := versionsServer(t)
	reqs := []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"structured","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"blocks"}}`,
		`{"jsonrpc":"2.0","id":4,"method":"resources/list"}`,
		`{"jsonrpc":"2.0","id":5,"method":"resources/templates/list"}`,
		`{"jsonrpc":"2.0","id":6,"method":"resources/read","params":{"uri":"test://r"}}`,
		`{"jsonrpc":"2.0","id":7,"method":"prompts/list"}`,
		`{"jsonrpc":"2.0","id":8,"method":"prompts/get","params":{"name":"p"}}`,
	}
	answers := map[string]string{}
	for round := range 2 {
		for _, v := range mcp.SupportedVersions() {
			p := newRawPeer(t, srv)
			var b strings.Builder
			fmt.Fprintf(&b, "< %s\n", p.roundTrip(fmt.Sprintf(initMsg, v)))
			p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			for _, r := range reqs {
				fmt.Fprintf(&b, "> %s\n< %s\n", r, p.roundTrip(r))
			}
			if round == 0 {
				answers[v] = b.String()
			} else if answers[v] != b.String() {
				t.Errorf("%s: the second session got other answers:\n%s\nfirst:\n%s", v, b.String(), answers[v])
			}
		}
	}
	for v, got := range answers {
		file := filepath.Join("testdata", "versions", v+".txt")
		if *update {
			must(t, os.MkdirAll(filepath.Dir(file), 0o755))
			must(t, os.WriteFile(file, []byte(got), 0o644))
			continue
		}
		want, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if got != string(want) {
			t.Errorf("%s: answers differ from %s:\n%s", v, file, got)
		}
	}
}
