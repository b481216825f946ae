// Package echotool is the same MCP server built on each SDK that bench
// compares: one tool, echo, whose one required string argument, message,
// comes back as one text block. The in-process benchmarks and
// cmd/httpecho (the servers the out-of-process harness loads) build their
// servers here, so both measure the same thing.
package echotool

import (
	"context"
	"net/http"

	mg "github.com/mark3labs/mcp-go/mcp"
	mgserver "github.com/mark3labs/mcp-go/server"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwire/mcpwire/mcp"
)

// Args are the echo tool's arguments, as every client sends them.
type Args struct {
	Message string `json:"message"`
}

// GoSDK returns a server of the official go-sdk with the echo tool.
func GoSDK() *sdk.Server {
	srv := sdk.NewServer(&sdk.Implementation{Name: "bench", Version: "1"}, nil)
	sdk.AddTool(srv, &sdk.Tool{Name: "echo"}, func(_ context.Context, _ *sdk.CallToolRequest, a Args) (*sdk.CallToolResult, any, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: a.Message}}}, nil, nil
	})
	return srv
}

// GoSDKHandler serves one GoSDK server over Streamable HTTP, sessions on
// (the default), at any path, and returns it with a func that closes the
// sessions its clients left open. With jsonResponse, answers are
// application/json (StreamableHTTPOptions.JSONResponse); without it, the
// go-sdk's default: every answer is an event stream.
func GoSDKHandler(jsonResponse bool) (http.Handler, func()) {
	srv := GoSDK()
	var opts *sdk.StreamableHTTPOptions
	if jsonResponse {
		opts = &sdk.StreamableHTTPOptions{JSONResponse: true}
	}
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, opts)
	return h, func() {
		for ss := range srv.Sessions() {
			ss.Close()
		}
	}
}

// MCPGo returns a server of mcp-go with the echo tool. It validates
// arguments against the input schema, as mcpwire and the go-sdk always
// do (mcp-go does only when asked).
func MCPGo() *mgserver.MCPServer {
	srv := mgserver.NewMCPServer("bench", "1", mgserver.WithToolCapabilities(false), mgserver.WithInputSchemaValidation())
	srv.AddTool(mg.NewTool("echo", mg.WithString("message", mg.Required())), func(_ context.Context, req mg.CallToolRequest) (*mg.CallToolResult, error) {
		msg, err := req.RequireString("message")
		if err != nil {
			return mg.NewToolResultError(err.Error()), nil
		}
		return mg.NewToolResultText(msg), nil
	})
	return srv
}

// MCPGoHandler serves one MCPGo server over Streamable HTTP with mcp-go's
// defaults (NewStreamableHTTPServer): answers are application/json unless
// the handler sends notifications (this one sends none), so the defaults
// are its JSON mode; session ids are issued, not tracked.
func MCPGoHandler() http.Handler {
	return mgserver.NewStreamableHTTPServer(MCPGo())
}

// Mcpwire returns an mcpwire server with the echo tool; opts as
// mcp.NewServer takes them (nil: the defaults).
func Mcpwire(opts *mcp.ServerOptions) (*mcp.Server, error) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "1"}, opts)
	err := mcp.AddTool(srv, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, a Args) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: a.Message}}}, nil, nil
	})
	return srv, err
}
