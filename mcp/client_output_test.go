package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/router"
)

// statsSchema is the output schema the tools of outputServer are listed
// with.
const statsSchema = `{"type":"object","properties":{"count":{"type":"integer"}},"required":["count"]}`

// outputServer serves "stats" and "more" (on a second page: one tool per
// page), both listed with statsSchema. Their handlers answer well; a
// middleware, as a faulty proxy could, replaces the answer as the
// "answer" argument says: "string" (count a string), "none" (no
// structuredContent), "error" (an error result without it), else the
// tool's own. With breakList set, tools/list lists "stats" with a schema
// that does not compile.
func outputServer(t *testing.T, breakList *bool) *mcp.Server {
	srv := mcp.NewServer(nil, &mcp.ServerOptions{PageSize: 1})
	for _, name := range []string{"stats", "more"} {
		must(t, srv.AddTool(&mcp.Tool{Name: name, OutputSchema: json.RawMessage(statsSchema)},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{StructuredContent: map[string]any{"count": 3}}, nil
			}))
	}
	srv.Use(func(next router.Handler) router.Handler {
		return router.HandlerFunc(func(ctx context.Context, req *router.Request) (any, error) {
			if req.Method == "tools/list" && breakList != nil && *breakList {
				return &mcp.ListToolsResult{Tools: []*mcp.Tool{{Name: "stats", InputSchema: json.RawMessage(`{"type":"object"}`),
					OutputSchema: json.RawMessage(`{"type":"object","properties":{"count":{"$ref":"#/$defs/nowhere"}}}`)}}}, nil
			}
			if req.Method != "tools/call" {
				return next.Handle(ctx, req)
			}
			var p struct {
				Arguments struct {
					Answer string `json:"answer"`
				} `json:"arguments"`
			}
			if err := json.Unmarshal(req.Params, &p); err != nil {
				t.Errorf("tools/call params %s: %v", req.Params, err)
			}
			text := []mcp.Content{&mcp.TextContent{Text: "answered"}}
			switch p.Arguments.Answer {
			case "string":
				return &mcp.CallToolResult{Content: text, StructuredContent: map[string]any{"count": "three"}}, nil
			case "none":
				return &mcp.CallToolResult{Content: text}, nil
			case "error":
				return &mcp.CallToolResult{Content: text, IsError: true}, nil
			}
			return next.Handle(ctx, req)
		})
	})
	return srv
}

// callStats calls tool with {"answer": answer}, by CallTool or, with
// raw set, by CallToolWith.
func callStats(ctx context.Context, cs *mcp.ClientSession, tool, answer string, raw bool) (*mcp.CallToolResult, error) {
	args := map[string]string{"answer": answer}
	if raw {
		b, _ := json.Marshal(args)
		return cs.CallToolWith(ctx, &mcp.CallToolParams{Name: tool, Arguments: b})
	}
	return cs.CallTool(ctx, tool, args)
}

// wantOutputError checks that err is a *ToolOutputError of tool whose
// violation mentions what, carrying the result.
func wantOutputError(t *testing.T, err error, tool, what string) *mcp.ToolOutputError {
	t.Helper()
	var oe *mcp.ToolOutputError
	if !errors.As(err, &oe) {
		t.Fatalf("%s: got %v, want a *mcp.ToolOutputError", tool, err)
	}
	if oe.Tool != tool || oe.Result == nil || !strings.Contains(oe.Error(), what) || !strings.Contains(oe.Error(), `"`+tool+`"`) {
		t.Fatalf("%s: got %+v (%v), want the tool named and %q", tool, oe, oe, what)
	}
	return oe
}

// A listed tool's structured output is checked against its output
// schema, on every page of the listing, by CallTool and CallToolWith; an
// error result is not; a tool not listed (yet, or since the list
// changed) is not either.
func TestClient_validatesStructuredContentAgainstTheListedOutputSchema(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			changed := make(chan struct{}, 1)
			srv := outputServer(t, nil)
			cs := tr.connect(t, srv, mcp.NewClient(nil, &mcp.ClientOptions{
				ToolListChangedHandler: func(context.Context, *mcp.ClientSession) { changed <- struct{}{} },
			}))
			ctx := ctx10(t)

			// Not listed yet: nothing is checked.
			if r, err := callStats(ctx, cs, "stats", "string", false); err != nil || r.StructuredContent == nil {
				t.Fatalf("before any listing: %v, %v; want the result unchecked", r, err)
			}

			if n := listAll(t, cs); n != 2 {
				t.Fatalf("listed %d tools, want 2 (one a page)", n)
			}
			for _, tool := range []string{"stats", "more"} {
				for _, raw := range []bool{false, true} {
					r, err := callStats(ctx, cs, tool, "", raw)
					if err != nil || string(r.StructuredContent.(json.RawMessage)) != `{"count":3}` {
						t.Fatalf("%s (raw %v) answering well: %v, %v", tool, raw, r, err)
					}
					r, err = callStats(ctx, cs, tool, "string", raw)
					if r != nil {
						t.Errorf("%s (raw %v): a result beside the error: %v", tool, raw, r)
					}
					oe := wantOutputError(t, err, tool, "count")
					if got := string(oe.Result.StructuredContent.(json.RawMessage)); got != `{"count":"three"}` {
						t.Errorf("%s: the error's result holds %s", tool, got)
					}
					_, err = callStats(ctx, cs, tool, "none", raw)
					wantOutputError(t, err, tool, "structuredContent")
					if !errors.Is(err, mcp.ErrNoStructuredContent) {
						t.Errorf("%s: %v is not ErrNoStructuredContent", tool, err)
					}
					if r, err := callStats(ctx, cs, tool, "error", raw); err != nil || !r.IsError {
						t.Errorf("%s: an error result: %v, %v; want it unchecked", tool, r, err)
					}
				}
			}

			// The tools changed: the schemas are forgotten until the
			// next listing.
			must(t, srv.AddTool(&mcp.Tool{Name: "new"}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{}, nil
			}))
			<-changed
			if _, err := callStats(ctx, cs, "stats", "string", false); err != nil {
				t.Fatalf("after list_changed: %v; want the result unchecked", err)
			}
			listAll(t, cs)
			_, err := callStats(ctx, cs, "stats", "string", false)
			wantOutputError(t, err, "stats", "count")
			// A first page starts a new set: the tools of the pages after
			// it are forgotten ("more" comes first, by name).
			if r, err := cs.ListTools(ctx, nil); err != nil || len(r.Tools) != 1 || r.Tools[0].Name != "more" {
				t.Fatalf("first page: %v, %v", r, err)
			}
			_, err = callStats(ctx, cs, "more", "string", false)
			wantOutputError(t, err, "more", "count")
			if _, err := callStats(ctx, cs, "stats", "string", false); err != nil {
				t.Fatalf("a tool of a later page after a new first page: %v; want it unchecked", err)
			}
		})
	}
}

// A listed output schema that does not compile fails the tool's calls
// with a *ToolOutputError saying so; the listing itself succeeds.
func TestClient_anOutputSchemaThatDoesNotCompileFailsTheCall(t *testing.T) {
	broken := true
	srv := outputServer(t, &broken)
	cs := connect(t, srv, mcp.NewClient(nil, nil))
	ctx := ctx10(t)
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatal(err)
	}
	_, err := callStats(ctx, cs, "stats", "", false)
	wantOutputError(t, err, "stats", "does not compile")
}

// listAll lists every page of the session's tools and returns how many.
func listAll(t *testing.T, cs *mcp.ClientSession) int {
	t.Helper()
	n := 0
	for _, err := range cs.Tools(ctx10(t)) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	return n
}
