package mcp_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/mcp"
)

func promptServer(t *testing.T, opts *mcp.ServerOptions) *mcp.Server {
	t.Helper()
	srv := mcp.NewServer(nil, opts)
	must(t, srv.AddPrompt(&mcp.Prompt{Name: "test_simple_prompt", Description: "simple"},
		func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: mcp.RoleUser, Content: &mcp.TextContent{Text: "This is a simple prompt for testing."}}}}, nil
		}))
	must(t, srv.AddPrompt(&mcp.Prompt{Name: "test_prompt_with_arguments", Arguments: []*mcp.PromptArgument{
		{Name: "arg1", Required: true}, {Name: "arg2", Required: true}, {Name: "arg3"},
	}}, func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		a := req.Params.Arguments
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: mcp.RoleUser, Content: &mcp.TextContent{Text: "Prompt with arguments: arg1='" + a["arg1"] + "', arg2='" + a["arg2"] + "'"}}}}, nil
	}))
	must(t, srv.AddPrompt(&mcp.Prompt{Name: "test_prompt_with_embedded_resource", Arguments: []*mcp.PromptArgument{{Name: "resourceUri", Required: true}}},
		func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{
				{Role: mcp.RoleUser, Content: &mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: req.Params.Arguments["resourceUri"], MIMEType: "text/plain", Text: "Embedded resource content for testing."}}},
				{Role: mcp.RoleUser, Content: &mcp.TextContent{Text: "Please process the embedded resource above."}},
			}}, nil
		}))
	return srv
}

func TestPrompts_listAndGet(t *testing.T) {
	cl := newClient(t, promptServer(t, nil))
	cl.initialize(mcp.LatestVersion)
	raw, err := cl.call("prompts/list", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(raw), `{"prompts":[{"name":"test_prompt_with_arguments","arguments":[{"name":"arg1","required":true},{"name":"arg2","required":true},{"name":"arg3"}]},`) {
		t.Fatalf("got %s", raw)
	}
	raw, err = cl.call("prompts/get", map[string]any{"name": "test_prompt_with_arguments", "arguments": map[string]string{"arg1": "a", "arg2": "b"}})
	if want := `{"messages":[{"role":"user","content":{"type":"text","text":"Prompt with arguments: arg1='a', arg2='b'"}}]}`; err != nil || string(raw) != want {
		t.Fatalf("got %s, %v\nwant %s", raw, err, want)
	}
	raw, err = cl.call("prompts/get", map[string]any{"name": "test_prompt_with_embedded_resource", "arguments": map[string]string{"resourceUri": "test://x"}})
	if err != nil {
		t.Fatal(err)
	}
	var res mcp.GetPromptResult
	if err := codec.UnmarshalExact(raw, &res); err != nil || len(res.Messages) != 2 {
		t.Fatalf("%s: %v", raw, err)
	}
	if e, ok := res.Messages[0].Content.(*mcp.EmbeddedResource); !ok || e.Resource.URI != "test://x" {
		t.Fatalf("decoded %#v", res.Messages[0].Content)
	}
}

func TestPrompts_errors(t *testing.T) {
	cl := newClient(t, promptServer(t, nil))
	cl.initialize(mcp.LatestVersion)
	e := cl.callErr("prompts/get", map[string]any{"name": "nope"})
	if e.Code != codec.CodeInvalidParams || !strings.Contains(e.Message, "nope") {
		t.Fatalf("unknown prompt: got %v", e)
	}
	e = cl.callErr("prompts/get", map[string]any{"name": "test_prompt_with_arguments", "arguments": map[string]string{"arg1": "a"}})
	if e.Code != codec.CodeInvalidParams || !strings.Contains(e.Message, "arg2") {
		t.Fatalf("missing argument: got %v", e)
	}
	e = cl.callErr("prompts/get", map[string]any{"name": 5})
	if e.Code != codec.CodeInvalidParams {
		t.Fatalf("malformed params: got %v", e)
	}
}

func TestCompletion(t *testing.T) {
	var seen *mcp.CompleteParams
	srv := promptServer(t, &mcp.ServerOptions{CompletionHandler: func(_ context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
		seen = req.Params
		vals := make([]string, 150)
		for i := range vals {
			vals[i] = req.Params.Argument.Value + strings.Repeat("x", i%3)
		}
		return &mcp.CompleteResult{Completion: mcp.CompletionValues{Values: vals, Total: 150}}, nil
	}})
	cl := newClient(t, srv)
	cl.initialize(mcp.LatestVersion)
	var res mcp.CompleteResult
	cl.mustCall("completion/complete", map[string]any{
		"ref":      map[string]any{"type": "ref/prompt", "name": "test_prompt_with_arguments"},
		"argument": map[string]any{"name": "arg1", "value": "pa"},
		"context":  map[string]any{"arguments": map[string]string{"arg2": "b"}},
	}, &res)
	if len(res.Completion.Values) != 100 || !res.Completion.HasMore || res.Completion.Total != 150 || res.Completion.Values[1] != "pax" {
		t.Fatalf("got %+v", res.Completion)
	}
	if seen.Argument.Name != "arg1" || seen.Context.Arguments["arg2"] != "b" {
		t.Fatalf("handler saw %+v", seen)
	}
	if e := cl.callErr("completion/complete", map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": "nope"}, "argument": map[string]any{"name": "a", "value": ""}}); e.Code != codec.CodeInvalidParams {
		t.Fatalf("unknown prompt: got %v", e)
	}
	if e := cl.callErr("completion/complete", map[string]any{"ref": map[string]any{"type": "ref/resource", "uri": "x://{y}"}, "argument": map[string]any{"name": "y", "value": ""}}); e.Code != codec.CodeInvalidParams {
		t.Fatalf("unknown template: got %v", e)
	}

	plain := newClient(t, promptServer(t, nil))
	plain.initialize(mcp.LatestVersion)
	if e := plain.callErr("completion/complete", map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": "test_simple_prompt"}, "argument": map[string]any{"name": "a", "value": ""}}); e.Code != codec.CodeMethodNotFound {
		t.Fatalf("no completion handler: got %v", e)
	}
}
