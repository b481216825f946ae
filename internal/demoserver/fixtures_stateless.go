package demoserver

import (
	"context"
	"encoding/json"
	"errors"

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
	)
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
