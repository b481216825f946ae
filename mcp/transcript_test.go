package mcp_test

import (
	"bufio"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/mcp"
)

var update = flag.Bool("update", false, "rewrite the expected lines of testdata/transcripts")

// fixtureServer is the server the transcripts talk to: a tool with an
// inferred schema, a resource and a template, a prompt with a required
// argument, a completion handler, pages of two.
func fixtureServer(t *testing.T) *mcp.Server {
	t.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "fixtures", Version: "1.0.0"}, &mcp.ServerOptions{
		PageSize:     2,
		Instructions: "Test fixtures.",
		CompletionHandler: func(_ context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
			return &mcp.CompleteResult{Completion: mcp.CompletionValues{Values: []string{req.Params.Argument.Value + "1", req.Params.Argument.Value + "2"}}}, nil
		},
	})
	must(t, addEcho(srv))
	must(t, srv.AddTool(&mcp.Tool{Name: "test_simple_text", Title: "Simple text", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "This is a simple text response for testing."}}}, nil
		}))
	must(t, srv.AddTool(&mcp.Tool{Name: "test_error_handling"},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "This tool intentionally returns an error for testing"}}}, nil
		}))
	must(t, srv.AddResource(&mcp.Resource{URI: "test://static-text", Name: "static-text", MIMEType: "text/plain"},
		func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{MIMEType: "text/plain", Text: "This is the content of the static text resource."}}}, nil
		}))
	must(t, srv.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "test://template/{id}/data", Name: "template", MIMEType: "application/json"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{MIMEType: "application/json", Text: `{"id":"` + req.Params.Vars["id"] + `"}`}}}, nil
		}))
	must(t, srv.AddPrompt(&mcp.Prompt{Name: "test_prompt_with_arguments", Arguments: []*mcp.PromptArgument{{Name: "arg1", Required: true}, {Name: "arg2", Required: true}}},
		func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			a := req.Params.Arguments
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: mcp.RoleUser, Content: &mcp.TextContent{Text: "Prompt with arguments: arg1='" + a["arg1"] + "', arg2='" + a["arg2"] + "'"}}}}, nil
		}))
	return srv
}

// TestTranscripts replays testdata/transcripts/*.txt against a fresh
// session of fixtureServer each: a line "> msg" is sent, and each "< msg"
// line that follows must be the next message received, byte for byte.
// Lines starting with "#" and blank lines are comments. With -update the
// expected lines are rewritten from what was received.
func TestTranscripts(t *testing.T) {
	files, err := filepath.Glob("testdata/transcripts/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no transcripts: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txt"), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			p := newRawPeer(t, fixtureServer(t))
			var out []string
			sc := bufio.NewScanner(strings.NewReader(string(data)))
			sc.Buffer(nil, 1<<20)
			for sc.Scan() {
				line := sc.Text()
				switch {
				case strings.HasPrefix(line, "> "):
					p.send(line[2:])
				case strings.HasPrefix(line, "< "):
					got := p.recv()
					if *update {
						line = "< " + got
					} else if got != line[2:] {
						t.Errorf("%s:\ngot  %s\nwant %s", file, got, line[2:])
					}
				}
				out = append(out, line)
			}
			if *update {
				if err := os.WriteFile(file, []byte(strings.Join(out, "\n")+"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}
