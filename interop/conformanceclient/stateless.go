package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/mcpwire/mcpwire/mcp"
)

// The scenarios of 2026-07-28 (the suite runs them with
// MCP_CONFORMANCE_PROTOCOL_VERSION=2026-07-28): the session is a
// stateless one, and the suite judges its _meta, its headers and its
// multi-round-trip requests on the wire.

// listOnly (json-schema-ref-no-deref): tools/list, nothing else; the
// client must not fetch the network $ref of the tool's input schema.
func listOnly(ctx context.Context, s *mcp.ClientSession) error {
	_, err := s.ListTools(ctx, nil)
	return err
}

// everyRequest (http-standard-headers): every kind of request whose
// headers the scenario checks: the tools, resources and prompts listed,
// each called, read or got.
func everyRequest(ctx context.Context, s *mcp.ClientSession) error {
	if err := callEveryTool(ctx, s); err != nil {
		return err
	}
	rs, err := s.ListResources(ctx, nil)
	if err != nil {
		return err
	}
	for _, r := range rs.Resources {
		if _, err := s.ReadResource(ctx, r.URI); err != nil {
			return err
		}
	}
	ps, err := s.ListPrompts(ctx, nil)
	if err != nil {
		return err
	}
	for _, p := range ps.Prompts {
		if _, err := s.GetPrompt(ctx, p.Name, nil); err != nil {
			return err
		}
	}
	return nil
}

// callEveryTool (http-invalid-tool-headers): every tool listed is called
// with a string for each of its required arguments; the tools whose
// x-mcp-header annotations are invalid are not listed.
func callEveryTool(ctx context.Context, s *mcp.ClientSession) error {
	tools, err := s.ListTools(ctx, nil)
	if err != nil {
		return err
	}
	for _, t := range tools.Tools {
		var schema struct {
			Required []string `json:"required"`
		}
		if raw, ok := t.InputSchema.(json.RawMessage); ok {
			_ = json.Unmarshal(raw, &schema)
		}
		args := map[string]any{}
		for _, name := range schema.Required {
			args[name] = "us-west1"
		}
		if err := callOK(s.CallTool(ctx, t.Name, args)); err != nil {
			return fmt.Errorf("%s: %w", t.Name, err)
		}
	}
	return nil
}

// contextToolCalls (http-custom-headers): tools/list, then the calls the
// scenario lists in MCP_CONFORMANCE_CONTEXT (toolCalls), whose arguments
// the transport mirrors in Mcp-Param headers.
func contextToolCalls(ctx context.Context, s *mcp.ClientSession) error {
	var c struct {
		ToolCalls []struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		} `json:"toolCalls"`
	}
	if err := json.Unmarshal([]byte(os.Getenv("MCP_CONFORMANCE_CONTEXT")), &c); err != nil {
		return fmt.Errorf("MCP_CONFORMANCE_CONTEXT: %w", err)
	}
	if _, err := s.ListTools(ctx, nil); err != nil {
		return err
	}
	for _, tc := range c.ToolCalls {
		if err := callOK(s.CallTool(ctx, tc.Name, tc.Arguments)); err != nil {
			return fmt.Errorf("%s: %w", tc.Name, err)
		}
	}
	return nil
}

// confirmForms is a user who confirms every form.
var confirmForms = &mcp.ClientOptions{
	ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		return &mcp.ElicitResult{Action: mcp.ElicitAccept, Content: map[string]any{"confirmed": true}}, nil
	},
}

// Tools of sep-2322-client-request-state.
const (
	echoStateTool    = "test_mrtr_echo_state"
	noStateTool      = "test_mrtr_no_state"
	unrelatedTool    = "test_mrtr_unrelated"
	noResultTypeTool = "test_mrtr_no_result_type"
)

// inputRounds (sep-2322-client-request-state): each tool answers
// input_required first (with a requestState, or without); the session
// answers the elicitation (confirmForms) and calls again, echoing the
// state. The unrelated tool is called once the first tool's round is
// answered (a call of its own between the others), and must carry none
// of their input.
func inputRounds(ctx context.Context, s *mcp.ClientSession) error {
	if _, err := s.ListTools(ctx, nil); err != nil {
		return err
	}
	for _, name := range []string{echoStateTool, unrelatedTool, noStateTool, noResultTypeTool} {
		if err := callOK(s.CallTool(ctx, name, map[string]any{})); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	return nil
}
