package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"

	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/mcp"
)

// A tool that asks the user's name. Under 2026-07-28 the first call is
// answered input_required; the client retries with the answer and the
// requestState, and the handler, run again, gets the answer. Under the
// older versions the same Elicit is a request to the client.
func ExampleServerRequest_Elicit() {
	srv := mcp.NewServer(&mcp.Implementation{Name: "greeter", Version: "1.0.0"}, nil)
	err := srv.AddTool(&mcp.Tool{Name: "greet", Description: "Greets the user by name"},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			r, err := req.Elicit(ctx, &mcp.ElicitParams{Message: "What is your name?",
				RequestedSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}}}`)})
			if err != nil {
				return nil, err // ErrInputRequired: the client is asked
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("Hello, %v!", r.Content["name"])}}}, nil
		})
	if err != nil {
		log.Fatal(err)
	}
	a, b := conn.InProcess()
	session, _ := srv.Connect(context.Background(), a)
	defer session.Close()
	client := conn.NewStream(b, nil)
	defer client.Close()

	meta := map[string]any{
		mcp.MetaProtocolVersion:    mcp.Version20260728,
		mcp.MetaClientCapabilities: map[string]any{"elicitation": map[string]any{}},
	}
	ctx := context.Background()
	raw, _ := client.CallRaw(ctx, "tools/call", map[string]any{"name": "greet", "_meta": meta})
	var asked struct {
		ResultType    string                     `json:"resultType"`
		InputRequests map[string]json.RawMessage `json:"inputRequests"`
		RequestState  string                     `json:"requestState"`
	}
	if err := json.Unmarshal(raw, &asked); err != nil {
		log.Fatal(err)
	}
	fmt.Println(asked.ResultType, string(asked.InputRequests["input-1"]))

	raw, _ = client.CallRaw(ctx, "tools/call", map[string]any{"name": "greet", "_meta": meta,
		"inputResponses": map[string]any{"input-1": map[string]any{"action": "accept", "content": map[string]any{"name": "Ada"}}},
		"requestState":   asked.RequestState})
	var done mcp.CallToolResult
	if err := json.Unmarshal(raw, &done); err != nil {
		log.Fatal(err)
	}
	fmt.Println(done.Content[0].(*mcp.TextContent).Text)
	// Output:
	// input_required {"method":"elicitation/create","params":{"message":"What is your name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}}}
	// Hello, Ada!
}
