package demoserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mcpwire/mcpwire/mcp"
)

// The tools of the conformance suite's tasks-* scenarios (the tasks
// extension of MCP 2026-07-28), with the names and behaviours they
// expect. Those whose TaskSupport is optional or required run as a task
// when the request declares the extension (under 2025-11-25, when the
// client asks for one); test_tool_with_task gathers its input first and
// then hands the rest to a task (mcp.StartTask).

// taskOptions are the demo server's tasks: the defaults, but room for
// the suite's runs (every task of the extension made without
// authentication shares one principal's bound).
var taskOptions = mcp.TaskOptions{MaxTasks: 1000}

// maxComputeSeconds bounds slow_compute's sleep.
const maxComputeSeconds = 120

// slowComputeArgs are slow_compute's arguments.
type slowComputeArgs struct {
	Seconds float64 `json:"seconds,omitempty" jsonschema:"how long to work, in seconds (at most 120)"`
	Label   string  `json:"label,omitempty" jsonschema:"a label echoed in the result"`
}

// greetArgs are greet's arguments.
type greetArgs struct {
	Name string `json:"name" jsonschema:"whom to greet"`
}

// deleteArgs are confirm_delete's arguments.
type deleteArgs struct {
	Filename string `json:"filename" jsonschema:"the file to delete"`
}

// Forms the task tools ask for.
var (
	deleteForm = json.RawMessage(`{"type":"object","properties":{"confirm":{"type":"boolean"}},"required":["confirm"]}`)
	multiForm  = json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"},"confirm":{"type":"boolean"}}}`)
)

// addTaskTools registers the tools of the tasks-* scenarios.
func addTaskTools(s *mcp.Server) error {
	supports := func(support string) *mcp.ToolExecution { return &mcp.ToolExecution{TaskSupport: support} }
	return errors.Join(
		mcp.AddTool(s, &mcp.Tool{Name: "greet", Description: "Says hello to name, at once (never a task)"},
			func(_ context.Context, _ *mcp.CallToolRequest, in greetArgs) (*mcp.CallToolResult, any, error) {
				return text("Hello, " + in.Name + "!"), nil, nil
			}),
		mcp.AddTool(s, &mcp.Tool{Name: "slow_compute", Description: "Works for the seconds given, then says it is done; a task when the client supports them",
			Execution: supports(mcp.TaskSupportOptional)}, slowCompute),
		mcp.AddTool(s, &mcp.Tool{Name: "failing_job", Description: "After a second, fails as a tool (isError); it must run as a task",
			Execution: supports(mcp.TaskSupportRequired)},
			func(ctx context.Context, _ *mcp.CallToolRequest, _ noArgs) (*mcp.CallToolResult, any, error) {
				if err := pause(ctx, time.Second); err != nil {
					return nil, nil, err
				}
				return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "The job failed, as it always does."}}}, nil, nil
			}),
		mcp.AddTool(s, &mcp.Tool{Name: "protocol_error_job", Description: "Panics: the call fails with a protocol error (-32603); a task when the client supports them",
			Execution: supports(mcp.TaskSupportOptional)},
			func(context.Context, *mcp.CallToolRequest, noArgs) (*mcp.CallToolResult, any, error) {
				panic("protocol_error_job fails on purpose")
			}),
		mcp.AddTool(s, &mcp.Tool{Name: "confirm_delete", Description: "Asks the user to confirm the deletion of filename, then says what it did; a task when the client supports them",
			Execution: supports(mcp.TaskSupportOptional)},
			func(ctx context.Context, req *mcp.CallToolRequest, in deleteArgs) (*mcp.CallToolResult, any, error) {
				r, err := req.Elicit(ctx, &mcp.ElicitParams{Message: "Delete " + in.Filename + "?", RequestedSchema: deleteForm})
				if err != nil {
					return nil, nil, err
				}
				if r.Action == mcp.ElicitAccept && r.Content["confirm"] == true {
					return text("Deleted " + in.Filename + "."), nil, nil
				}
				return text("Kept " + in.Filename + " (" + string(r.Action) + ")."), nil, nil
			}),
		mcp.AddTool(s, &mcp.Tool{Name: "multi_input", Description: "Asks the user two questions at once, then repeats the answers; a task when the client supports them",
			Execution: supports(mcp.TaskSupportOptional)},
			func(ctx context.Context, req *mcp.CallToolRequest, _ noArgs) (*mcp.CallToolResult, any, error) {
				a, err := req.Inputs(ctx,
					mcp.Input{Key: "first", Elicit: &mcp.ElicitParams{Message: "First question", RequestedSchema: multiForm}},
					mcp.Input{Key: "second", Elicit: &mcp.ElicitParams{Message: "Second question", RequestedSchema: multiForm}})
				if err != nil {
					return nil, nil, err
				}
				return text(fmt.Sprintf("First: %v. Second: %v.", a[0].Elicit.Content, a[1].Elicit.Content)), nil, nil
			}),
		mcp.AddTool(s, &mcp.Tool{Name: "test_tool_with_task", Description: "Asks the user's name (input request user_name), then greets them from a task when the client supports them"},
			func(ctx context.Context, req *mcp.CallToolRequest, _ noArgs) (*mcp.CallToolResult, any, error) {
				a, err := req.Inputs(ctx, askName)
				if err != nil {
					return nil, nil, err
				}
				name := field(a[0].Elicit, "name")
				res, err := mcp.StartTask(ctx, req, func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					return text(fmt.Sprintf("Hello, %v! (from a task)", name)), nil
				})
				return res, nil, err
			}),
	)
}

// slowCompute works for the seconds asked (at most maxComputeSeconds),
// unless cancelled first.
func slowCompute(ctx context.Context, _ *mcp.CallToolRequest, in slowComputeArgs) (*mcp.CallToolResult, any, error) {
	secs := min(max(in.Seconds, 0), maxComputeSeconds)
	if err := pause(ctx, time.Duration(secs*float64(time.Second))); err != nil {
		return nil, nil, err
	}
	return text(fmt.Sprintf("Computed %q in %v s.", in.Label, secs)), nil, nil
}
