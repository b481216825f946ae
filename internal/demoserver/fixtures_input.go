package demoserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/mcpwire/mcpwire/mcp"
)

// The tools and the prompt of the conformance suite's
// input-required-result scenarios (multi-round-trip requests, MCP
// 2026-07-28), with the names, keys and texts they expect. Each asks its
// client through the request (Inputs, Elicit…), so it works in every
// version: under 2026-07-28 the request is answered input_required and
// the client retries it with the answers; under the older ones each
// question is a request to the client, answered while the tool waits.

// Forms the input-required tools ask for.
var (
	nameForm    = json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)
	colorForm   = json.RawMessage(`{"type":"object","properties":{"color":{"type":"string"}},"required":["color"]}`)
	confirmForm = json.RawMessage(`{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}`)
	contextForm = json.RawMessage(`{"type":"object","properties":{"context":{"type":"string"}},"required":["context"]}`)
)

// Questions of the input-required tools.
var (
	askName    = mcp.Input{Key: "user_name", Elicit: &mcp.ElicitParams{Message: "What is your name?", RequestedSchema: nameForm}}
	askRoots   = mcp.Input{Key: "client_roots", Roots: true}
	askConfirm = mcp.Input{Key: "confirm", Elicit: &mcp.ElicitParams{Message: "Please confirm", RequestedSchema: confirmForm}}
)

// ask returns a question to the client's model.
func ask(key, question string, maxTokens int) mcp.Input {
	return mcp.Input{Key: key, Sample: &mcp.CreateMessageParams{MaxTokens: maxTokens,
		Messages: []*mcp.SamplingMessage{{Role: mcp.RoleUser, Content: []mcp.Content{&mcp.TextContent{Text: question}}}}}}
}

// confirmState is the state test_input_required_result_request_state
// carries from its first round to its second.
const confirmState = "awaiting confirmation"

// addInputTools registers the tools and the prompt of the
// input-required-result scenarios.
func addInputTools(s *mcp.Server) error {
	tool := func(name, description string, h mcp.ToolHandlerFor[noArgs, any]) error {
		return mcp.AddTool(s, &mcp.Tool{Name: name, Description: description}, h)
	}
	return errors.Join(
		tool("test_input_required_result_elicitation", "Asks the user's name (input request user_name) and greets them", inputTool(
			func(a []mcp.InputAnswer) string { return fmt.Sprintf("Hello, %v!", field(a[0].Elicit, "name")) }, askName)),
		tool("test_input_required_result_sampling", "Asks the client's model the capital of France (input request capital_question)", inputTool(
			func(a []mcp.InputAnswer) string { return "The model said: " + firstText(a[0].Sample.Content) },
			ask("capital_question", "What is the capital of France?", 100))),
		tool("test_input_required_result_list_roots", "Asks for the client's roots (input request client_roots) and lists them", inputTool(
			func(a []mcp.InputAnswer) string { return "Roots: " + rootList(a[0].Roots) }, askRoots)),
		tool("test_input_required_result_multiple_inputs", "Asks a name, a greeting from the model and the roots in one round", inputTool(
			func(a []mcp.InputAnswer) string {
				return fmt.Sprintf("Hello, %v! The model said: %s Roots: %s", field(a[0].Elicit, "name"), firstText(a[1].Sample.Content), rootList(a[2].Roots))
			}, askName, ask("greeting", "Generate a greeting", 50), askRoots)),
		tool("test_input_required_result_multi_round", "Asks a name (step1), then a favourite colour (step2), one round each", multiRound),
		tool("test_input_required_result_request_state", "Asks for a confirmation, carrying a state of its own to the next round", requestState),
		tool("test_input_required_result_tampered_state", "Asks for a confirmation; its requestState is sealed, so an altered one is refused", inputTool(
			func(a []mcp.InputAnswer) string { return "Confirmed: " + outcome(a[0].Elicit) }, askConfirm)),
		tool("test_input_required_result_capabilities", "Asks only what the client declared: sampling, elicitation, roots", capabilities),
		s.AddPrompt(&mcp.Prompt{Name: "test_input_required_result_prompt", Description: "A prompt that asks the user for its context (input request user_context)"},
			func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
				a, err := req.Inputs(ctx, mcp.Input{Key: "user_context",
					Elicit: &mcp.ElicitParams{Message: "What context should the prompt use?", RequestedSchema: contextForm}})
				if err != nil {
					return nil, err
				}
				return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{
					userText(fmt.Sprintf("Use this context: %v", field(a[0].Elicit, "context")))}}, nil
			}),
	)
}

// inputTool returns a tool that asks in and says what say makes of the
// answers.
func inputTool(say func([]mcp.InputAnswer) string, in ...mcp.Input) mcp.ToolHandlerFor[noArgs, any] {
	return func(ctx context.Context, req *mcp.CallToolRequest, _ noArgs) (*mcp.CallToolResult, any, error) {
		a, err := req.Inputs(ctx, in...)
		if err != nil {
			return nil, nil, err
		}
		return text(say(a)), nil, nil
	}
}

// multiRound is test_input_required_result_multi_round: the second
// question is asked once the first is answered.
func multiRound(ctx context.Context, req *mcp.CallToolRequest, _ noArgs) (*mcp.CallToolResult, any, error) {
	name, err := req.Inputs(ctx, mcp.Input{Key: "step1", Elicit: &mcp.ElicitParams{Message: "Step 1: What is your name?", RequestedSchema: nameForm}})
	if err != nil {
		return nil, nil, err
	}
	color, err := req.Inputs(ctx, mcp.Input{Key: "step2", Elicit: &mcp.ElicitParams{Message: "Step 2: What is your favorite color?", RequestedSchema: colorForm}})
	if err != nil {
		return nil, nil, err
	}
	return text(fmt.Sprintf("%v likes %v", field(name[0].Elicit, "name"), field(color[0].Elicit, "color"))), nil, nil
}

// requestState is test_input_required_result_request_state: under
// 2026-07-28 it checks that the state it stored in the first round came
// back, and says "state-ok".
func requestState(ctx context.Context, req *mcp.CallToolRequest, _ noArgs) (*mcp.CallToolResult, any, error) {
	carried := string(req.State())
	req.SetState([]byte(confirmState))
	a, err := req.Inputs(ctx, askConfirm)
	if err != nil {
		return nil, nil, err
	}
	if mcp.IsStatelessVersion(req.Session.ProtocolVersion()) && carried != confirmState {
		return nil, nil, errors.New("the requestState of the first round did not come back")
	}
	return text("state-ok: " + outcome(a[0].Elicit)), nil, nil
}

// capabilities is test_input_required_result_capabilities: it asks what
// the client declared, and nothing else.
func capabilities(ctx context.Context, req *mcp.CallToolRequest, _ noArgs) (*mcp.CallToolResult, any, error) {
	var in []mcp.Input
	cc := req.Session.ClientCapabilities()
	if cc.Sampling != nil {
		in = append(in, ask("capital_question", "What is the capital of France?", 100))
	}
	if cc.Elicitation.SupportsForm() {
		in = append(in, askName)
	}
	if cc.Roots != nil {
		in = append(in, askRoots)
	}
	if len(in) == 0 {
		return text("The client declared nothing to ask it."), nil, nil
	}
	if _, err := req.Inputs(ctx, in...); err != nil {
		return nil, nil, err
	}
	return text(fmt.Sprintf("The client answered %d questions.", len(in))), nil, nil
}

// field returns member name of an elicitation's content, or "(none)".
func field(r *mcp.ElicitResult, name string) any {
	if v, ok := r.Content[name]; ok {
		return v
	}
	return "(none)"
}

// rootList lists the URIs of roots.
func rootList(r *mcp.ListRootsResult) string {
	uris := make([]string, len(r.Roots))
	for i, root := range r.Roots {
		uris[i] = root.URI
	}
	return strings.Join(uris, ", ")
}
