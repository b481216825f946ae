package mcp_test

import (
	"context"
	"fmt"
	"log"
	"strings"

	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/mcp"
)

// A server with one typed tool, and a client on the other end of an
// in-memory pipe calling it.
func Example() {
	type Args struct {
		Message string `json:"message" jsonschema:"the text to echo"`
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "echo-server", Version: "1.0.0"}, nil)
	err := mcp.AddTool(srv, &mcp.Tool{Name: "echo", Description: "Echoes its message"},
		func(_ context.Context, _ *mcp.CallToolRequest, in Args) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Message}}}, nil, nil
		})
	if err != nil {
		log.Fatal(err) // a tool that cannot be served: see AddTool
	}

	a, b := conn.Pipe()
	session, _ := srv.Connect(context.Background(), conn.NewMessageStream(a, nil))
	defer session.Close()
	client := conn.NewStream(conn.NewMessageStream(b, nil), nil)
	defer client.Close()

	ctx := context.Background()
	init, _ := client.CallRaw(ctx, "initialize", map[string]any{
		"protocolVersion": "2025-06-18",
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "example", "version": "1"},
	})
	fmt.Println(string(init))
	client.Notify(ctx, "notifications/initialized", nil)

	list, _ := client.CallRaw(ctx, "tools/list", nil)
	fmt.Println(string(list))
	res, _ := client.CallRaw(ctx, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"message": "hello"}})
	fmt.Println(string(res))
	res, _ = client.CallRaw(ctx, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{}})
	fmt.Println(string(res))
	// Output:
	// {"protocolVersion":"2025-06-18","capabilities":{"logging":{},"tools":{"listChanged":true}},"serverInfo":{"name":"echo-server","version":"1.0.0"}}
	// {"tools":[{"name":"echo","description":"Echoes its message","inputSchema":{"type":"object","properties":{"message":{"type":"string","description":"the text to echo"}},"required":["message"],"additionalProperties":false}}]}
	// {"content":[{"type":"text","text":"hello"}]}
	// {"content":[{"type":"text","text":"invalid arguments for tool \"echo\": validating root: required: missing properties: [\"message\"]"}],"isError":true}
}

// A tool's structured output must be a JSON object: an int is refused
// where the tool is registered, and the server goes on without it.
func ExampleAddTool_outputNotAnObject() {
	type Args struct {
		Text string `json:"text"`
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "counter", Version: "1.0.0"}, nil)
	err := mcp.AddTool(srv, &mcp.Tool{Name: "count", Description: "Counts the words of a text"},
		func(_ context.Context, _ *mcp.CallToolRequest, in Args) (*mcp.CallToolResult, int, error) {
			return nil, len(strings.Fields(in.Text)), nil
		})
	fmt.Println(err)
	// Output:
	// mcp: tool "count": output schema: the Go type int is not a JSON object: use a struct (wrap the int in one) or a map
}
