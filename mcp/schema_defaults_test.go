package mcp_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/mcp"
)

type defaultsIn struct {
	Name    string   `json:"name"`
	Status  string   `json:"status,omitempty" default:"active"`
	Age     int      `json:"age" default:"30"`
	Score   *float64 `json:"score,omitempty" default:"95.5"`
	Tags    []string `json:"tags,omitempty" default:"[\"a\",\"b\"]"`
	Options struct {
		Verbose bool   `json:"verbose,omitempty" default:"true"`
		Mode    string `json:"mode,omitempty" default:"\"fast\""`
	} `json:"options,omitzero"`
}

// TestToolDefaults_fromGoTags checks that the defaults of default tags
// are in the schema served, and are applied to missing arguments before
// validation and the handler, nested ones included; given arguments win.
func TestToolDefaults_fromGoTags(t *testing.T) {
	srv := mcp.NewServer(nil, nil)
	must(t, mcp.AddTool(srv, &mcp.Tool{Name: "d"}, func(_ context.Context, req *mcp.CallToolRequest, in defaultsIn) (*mcp.CallToolResult, any, error) {
		raw, _ := json.Marshal(in)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(raw) + " " + string(req.Params.Arguments)}}}, nil, nil
	}))
	cs := connect(t, srv, mcp.NewClient(nil, nil))
	ctx := ctx10(t)
	tool := firstTool(t, cs)
	schema := string(tool.InputSchema.(json.RawMessage))
	for _, want := range []string{`"default":"active"`, `"default":30`, `"default":95.5`, `"default":["a","b"]`, `"default":true`, `"default":"fast"`, `"required":["name"]`} {
		if !strings.Contains(schema, want) {
			t.Errorf("schema %s lacks %s", schema, want)
		}
	}
	for _, tc := range []struct{ args, want string }{
		{`{"name":"x"}`, `{"name":"x","status":"active","age":30,"score":95.5,"tags":["a","b"],"options":{"verbose":true,"mode":"fast"}}`},
		{`{"name":"x","status":"off","age":1,"score":2,"tags":[],"options":{"mode":"slow"}}`, `{"name":"x","status":"off","age":1,"score":2,"options":{"verbose":true,"mode":"slow"}}`},
	} {
		res, err := cs.CallTool(ctx, "d", json.RawMessage(tc.args))
		if err != nil || res.IsError {
			t.Fatalf("%s: %+v, %v", tc.args, res, err)
		}
		got, _, _ := strings.Cut(firstTextOf(res), " ")
		if got != tc.want {
			t.Errorf("%s: handler saw %s, want %s", tc.args, got, tc.want)
		}
	}
	// A missing required argument still fails, naming it.
	res, err := cs.CallTool(ctx, "d", map[string]any{})
	if err != nil || !res.IsError || !strings.Contains(firstTextOf(res), "name") {
		t.Fatalf("%+v, %v", res, err)
	}
}

// TestToolDefaults_verbatimSchema checks defaults of a schema given as
// JSON: validation sees them (an enum default satisfies it) and so does
// a raw handler; a default its own schema refuses is an error at AddTool.
func TestToolDefaults_verbatimSchema(t *testing.T) {
	srv := mcp.NewServer(nil, nil)
	schema := json.RawMessage(`{"type":"object","properties":{"unit":{"type":"string","enum":["c","f"],"default":"c"},"n":{"type":"integer","minimum":1,"default":3}},"additionalProperties":false}`)
	must(t, srv.AddTool(&mcp.Tool{Name: "v", InputSchema: schema}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(req.Params.Arguments)}}}, nil
	}))
	cs := connect(t, srv, mcp.NewClient(nil, nil))
	ctx := ctx10(t)
	for _, tc := range []struct{ args, want string }{
		{`{}`, `{"n":3,"unit":"c"}`},
		{`{"unit":"f"}`, `{"n":3,"unit":"f"}`},
		{`{"n":12345678901234567890}`, `{"n":12345678901234567890,"unit":"c"}`},
	} {
		res, err := cs.CallTool(ctx, "v", json.RawMessage(tc.args))
		if err != nil || res.IsError || firstTextOf(res) != tc.want {
			t.Fatalf("%s: %q, %v", tc.args, firstTextOf(res), err)
		}
	}
	if res, err := cs.CallTool(ctx, "v", nil); err != nil || firstTextOf(res) != `{"n":3,"unit":"c"}` {
		t.Fatalf("no arguments: %+v, %v", res, err)
	}
	res, err := cs.CallTool(ctx, "v", map[string]any{"unit": "k"})
	if err != nil || !res.IsError || !strings.Contains(firstTextOf(res), "unit") {
		t.Fatalf("%+v, %v", res, err)
	}
	bad := json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer","default":"three"}}}`)
	if err := srv.AddTool(&mcp.Tool{Name: "bad", InputSchema: bad}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return nil, nil }); err == nil {
		t.Fatal("a default its schema refuses was accepted")
	}
	type badTag struct {
		N int `json:"n,omitempty" default:"three"`
	}
	if err := mcp.AddTool(srv, &mcp.Tool{Name: "badtag"}, func(context.Context, *mcp.CallToolRequest, badTag) (*mcp.CallToolResult, any, error) {
		return nil, nil, nil
	}); err == nil || !strings.Contains(err.Error(), "three") {
		t.Fatalf("a default tag that is not JSON: %v", err)
	}
}

// firstTool returns the server's first tool.
func firstTool(t *testing.T, cs *mcp.ClientSession) *mcp.Tool {
	t.Helper()
	r, err := cs.ListTools(ctx10(t), nil)
	if err != nil || len(r.Tools) == 0 {
		t.Fatalf("%+v, %v", r, err)
	}
	return r.Tools[0]
}
