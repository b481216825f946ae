package mcp_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/mcp"
)

// TestInput_olderVersions checks that the handlers that ask through
// input_required under 2026-07-28 complete in a session of 2025-11-25
// with real requests to the client, one per question, in order.
func TestInput_olderVersions(t *testing.T) {
	cl := newClient(t, inputServer(t, nil))
	cl.initialize("2025-11-25")
	var asked []string
	cl.serve("elicitation/create", func(_ context.Context, params json.RawMessage) (any, error) {
		var p mcp.ElicitParams
		must(t, codec.Unmarshal(params, &p))
		asked = append(asked, "elicit "+p.Message)
		if p.Message == "Step 2" {
			return codec.Raw(blueAnswer), nil
		}
		return codec.Raw(aliceAnswer), nil
	})
	cl.serve("sampling/createMessage", func(context.Context, json.RawMessage) (any, error) {
		asked = append(asked, "sample")
		return codec.Raw(sampled), nil
	})
	cl.serve("roots/list", func(context.Context, json.RawMessage) (any, error) {
		asked = append(asked, "roots")
		return codec.Raw(rootsAnswer), nil
	})
	for _, tc := range []struct {
		tool, want string
		asked      []string
	}{
		{"greet", "Hello, Alice!", []string{"elicit What is your name?"}},
		{"rounds", `Alice likes blue (state "")`, []string{"elicit Step 1", "elicit Step 2"}},
		{"all", "Alice Hi there file:///r", []string{"elicit Name?", "sample", "roots"}},
	} {
		asked = nil
		var res mcp.CallToolResult
		cl.mustCall("tools/call", map[string]any{"name": tc.tool}, &res)
		if len(res.Content) != 1 || res.Content[0].(*mcp.TextContent).Text != tc.want || res.IsError {
			t.Errorf("%s: got %+v, want %q", tc.tool, res.Content, tc.want)
		}
		if len(asked) != len(tc.asked) {
			t.Errorf("%s: asked %q, want %q", tc.tool, asked, tc.asked)
			continue
		}
		for i := range asked {
			if asked[i] != tc.asked[i] {
				t.Errorf("%s: asked %q, want %q", tc.tool, asked, tc.asked)
				break
			}
		}
	}
	var pr mcp.GetPromptResult
	cl.mustCall("prompts/get", map[string]any{"name": "asks"}, &pr)
	if len(pr.Messages) != 1 || pr.Messages[0].Content.(*mcp.TextContent).Text != "accept" {
		t.Errorf("prompts/get: %+v", pr.Messages)
	}
}
