package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/mcp/streamable"
	"github.com/mcpwire/mcpwire/oauth"
)

// scenario is what the conformance client does in one of the suite's
// scenarios: run, in a session opened with opts, its requests authorized
// by what auth returns if it is set.
type scenario struct {
	opts *mcp.ClientOptions
	auth func() (*oauth.Authorizer, error)
	run  func(context.Context, *mcp.ClientSession) error
}

// scenarios are the client scenarios this program knows, by the names
// the suite gives them.
var scenarios = withAuthScenarios(map[string]scenario{
	"initialize":                          {run: listAndCall},
	"tools_call":                          {run: listAndCall},
	"elicitation-sep1034-client-defaults": {opts: acceptEmptyForms, run: elicitationDefaults},
	"sse-retry":                           {run: sseRetry},
	"json-schema-2020-12-preservation":    {run: echoSchema},
	// 2026-07-28
	"request-metadata":              {run: listAndCall},
	"json-schema-ref-no-deref":      {run: listOnly},
	"http-standard-headers":         {run: everyRequest},
	"http-invalid-tool-headers":     {run: callEveryTool},
	"http-custom-headers":           {run: contextToolCalls},
	"sep-2322-client-request-state": {opts: confirmForms, run: inputRounds},
})

// connect opens a session with the server at url over Streamable HTTP,
// its requests authorized by auth if it is not nil,
// asking for protocol version when the client speaks it, else for
// mcp.LatestVersion (2025-11-25, what the suite runs when it names no
// version), not the client's default.
func connect(ctx context.Context, url, version string, opts *mcp.ClientOptions, auth streamable.Authorizer) (*mcp.ClientSession, error) {
	o := mcp.ClientOptions{}
	if opts != nil {
		o = *opts
	}
	o.ProtocolVersion = mcp.LatestVersion
	if slices.Contains(mcp.SupportedVersions(), version) || mcp.IsStatelessVersion(version) {
		o.ProtocolVersion = version
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "mcpwire-conformance-client", Version: "1.0.0"}, &o)
	return streamable.Connect(ctx, c, url, &streamable.ClientOptions{DisableSSEFallback: true, Authorizer: auth})
}

// listAndCall (initialize, tools_call): tools/list, and a call of the
// first tool listed with {"a":2,"b":3}.
func listAndCall(ctx context.Context, s *mcp.ClientSession) error {
	tools, err := s.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) == 0 {
		return err
	}
	return callOK(s.CallTool(ctx, tools.Tools[0].Name, map[string]any{"a": 2, "b": 3}))
}

// acceptEmptyForms is a user who accepts every form without filling in
// any field.
var acceptEmptyForms = &mcp.ClientOptions{
	ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		return &mcp.ElicitResult{Action: mcp.ElicitAccept, Content: map[string]any{}}, nil
	},
}

// elicitationDefaults (SEP-1034): the tool asks for a form whose fields
// all have defaults; the user accepts it empty (acceptEmptyForms), and
// the client completes the answer with the schema's defaults.
func elicitationDefaults(ctx context.Context, s *mcp.ClientSession) error {
	return callOK(s.CallTool(ctx, "test_client_elicitation_defaults", map[string]any{}))
}

// sseRetry (SEP-1699): the server closes the call's event stream before
// the answer; the transport resumes it after the server's retry delay,
// with Last-Event-ID, and the answer arrives there.
func sseRetry(ctx context.Context, s *mcp.ClientSession) error {
	return callOK(s.CallTool(ctx, "test_reconnection", map[string]any{}))
}

// Tools of json-schema-2020-12-preservation.
const (
	focalTool = "json_schema_2020_12_tool"
	echoTool  = "json_schema_echo"
)

// echoSchema (json-schema-2020-12-preservation): the focal tool's input
// schema, as tools/list gave it to the client, is sent back verbatim to
// the echo tool; the scenario checks that no keyword was lost.
func echoSchema(ctx context.Context, s *mcp.ClientSession) error {
	tools, err := s.ListTools(ctx, nil)
	if err != nil {
		return err
	}
	i := slices.IndexFunc(tools.Tools, func(t *mcp.Tool) bool { return t.Name == focalTool })
	if i < 0 {
		return fmt.Errorf("the server lists no tool %s", focalTool)
	}
	schema, ok := tools.Tools[i].InputSchema.(json.RawMessage)
	if !ok {
		return fmt.Errorf("%s's input schema is a %T, not the JSON listed", focalTool, tools.Tools[i].InputSchema)
	}
	return callOK(s.CallTool(ctx, echoTool, map[string]any{"schema": schema}))
}

// callOK is the error of a tools/call: the call's own, or the tool's.
func callOK(r *mcp.CallToolResult, err error) error {
	if err != nil {
		return err
	}
	if r.IsError {
		return errors.New("the tool answered with an error result")
	}
	return nil
}
