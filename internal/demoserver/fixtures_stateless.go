package demoserver

import (
	"context"
	"encoding/json"
	"errors"
	"sync/atomic"

	"github.com/mcpwire/mcpwire/mcp"
)

// addStatelessTools adds the diagnostic tools conformance 0.2.0's
// server-stateless scenario (2026-07-28) calls. They serve every version.
func (d *demo) addStatelessTools() error {
	s := d.srv
	return errors.Join(
		mcp.AddTool(s, &mcp.Tool{Name: "test_missing_capability", Description: "Needs the client's sampling capability: asks the client's model to say hi"}, missingCapability),
		mcp.AddTool(s, &mcp.Tool{Name: "test_streaming_elicitation", Description: "Reports progress when given a progress token, then answers: its response carries no request of the server's"}, streamingElicitation),
		mcp.AddTool(s, &mcp.Tool{Name: "test_logging_tool", Description: "Sends one info log message (under 2026-07-28, only to a request that set a log level), then answers"}, loggingTool),
		mcp.AddTool(s, &mcp.Tool{Name: "test_param_headers", Description: "Says which region it was asked for; over Streamable HTTP under 2026-07-28 the region comes in the Mcp-Param-Region header too",
			InputSchema: paramHeadersSchema}, paramHeaders),
		mcp.AddTool(s, &mcp.Tool{Name: "test_trigger_tool_change", Description: "Adds the tool test_changed_tool, or removes it if it is there: the tool list changes"},
			toggle(func() error {
				return constant(s, "test_changed_tool", "A tool test_trigger_tool_change adds and removes", text("changed"))
			},
				func() { s.RemoveTools("test_changed_tool") }, "tool")),
		mcp.AddTool(s, &mcp.Tool{Name: "test_trigger_prompt_change", Description: "Adds the prompt test_changed_prompt, or removes it if it is there: the prompt list changes"},
			toggle(func() error {
				return s.AddPrompt(&mcp.Prompt{Name: "test_changed_prompt", Description: "A prompt test_trigger_prompt_change adds and removes"},
					func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
						return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: mcp.RoleUser, Content: &mcp.TextContent{Text: "changed"}}}}, nil
					})
			}, func() { s.RemovePrompts("test_changed_prompt") }, "prompt")),
	)
}

// toggle returns a tool handler that adds something (add) on its first
// call, removes it (remove) on the next, and so on: each call changes a
// list, which the server announces (list_changed; under 2026-07-28, on
// subscriptions/listen streams). conformance 0.2.0's server-stateless
// calls test_trigger_tool_change and test_trigger_prompt_change.
func toggle(add func() error, remove func(), what string) mcp.ToolHandlerFor[noArgs, any] {
	var shown atomic.Bool
	return func(context.Context, *mcp.CallToolRequest, noArgs) (*mcp.CallToolResult, any, error) {
		if shown.CompareAndSwap(false, true) {
			if err := add(); err != nil {
				shown.Store(false)
				return nil, nil, err
			}
			return text("The " + what + " list changed: one was added."), nil, nil
		}
		remove()
		shown.Store(false)
		return text("The " + what + " list changed: one was removed."), nil, nil
	}
}

// paramHeadersSchema is test_param_headers' input: a region that clients
// mirror into the Mcp-Param-Region header (x-mcp-header), for conformance
// 0.2.0's http-custom-header-server-validation.
var paramHeadersSchema = json.RawMessage(`{"type":"object","properties":{` +
	`"region":{"type":"string","description":"The region to run in","x-mcp-header":"Region"},` +
	`"query":{"type":"string","description":"What to run"}},"required":["region"]}`)

type paramHeadersArgs struct {
	Region string `json:"region"`
	Query  string `json:"query,omitempty"`
}

// paramHeaders answers with the region of its arguments.
func paramHeaders(_ context.Context, _ *mcp.CallToolRequest, in paramHeadersArgs) (*mcp.CallToolResult, any, error) {
	return text("Region: " + in.Region), nil, nil
}

// missingCapability samples the client's model. A request of 2026-07-28
// that did not declare sampling is refused with -32021 (the error the
// session returns, returned as it is).
func missingCapability(ctx context.Context, req *mcp.CallToolRequest, _ noArgs) (*mcp.CallToolResult, any, error) {
	res, err := req.Session.CreateMessage(ctx, &mcp.CreateMessageParams{
		Messages:  []*mcp.SamplingMessage{{Role: mcp.RoleUser, Content: []mcp.Content{&mcp.TextContent{Text: "Say hi"}}}},
		MaxTokens: 10,
	})
	if err != nil {
		return nil, nil, err
	}
	return text("Success: " + firstText(res.Content)), nil, nil
}

// streamingElicitation reports half its progress, then answers.
func streamingElicitation(ctx context.Context, req *mcp.CallToolRequest, _ noArgs) (*mcp.CallToolResult, any, error) {
	if err := req.Progress(ctx, 50, 100, ""); err != nil {
		return nil, nil, err
	}
	return text("Streaming complete"), nil, nil
}

// loggingTool logs once at info, then answers.
func loggingTool(ctx context.Context, req *mcp.CallToolRequest, _ noArgs) (*mcp.CallToolResult, any, error) {
	if err := req.Log(ctx, mcp.LevelInfo, "test_logging_tool", "Diagnostic trace logging activated"); err != nil {
		return nil, nil, err
	}
	return text("Logging evaluated"), nil, nil
}
