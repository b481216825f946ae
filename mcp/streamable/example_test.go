package streamable_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/mcp/streamable"
)

// A server over Streamable HTTP on a loopback address, and a client
// calling its tool. A real server would listen with transport.NewHTTPServer
// (HTTPServerOptions.EventStreams) and mount the handler at /mcp.
func ExampleNewHandler() {
	type Args struct {
		Message string `json:"message"`
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "echo-server", Version: "1.0.0"}, nil)
	err := mcp.AddTool(srv, &mcp.Tool{Name: "echo", Description: "Echoes its message"},
		func(_ context.Context, _ *mcp.CallToolRequest, in Args) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Message}}}, nil, nil
		})
	if err != nil {
		log.Fatal(err) // a tool that cannot be served: see AddTool
	}
	h := streamable.NewHandler(srv, nil)
	defer h.Close()
	ts := httptest.NewServer(h)
	defer ts.Close()

	ctx := context.Background()
	client := mcp.NewClient(&mcp.Implementation{Name: "example", Version: "1"}, nil)
	session, err := streamable.Connect(ctx, client, ts.URL, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer session.Close()
	fmt.Println(session.ProtocolVersion(), session.InitializeResult().ServerInfo.Name)
	res, err := session.CallTool(ctx, "echo", map[string]string{"message": "hello over HTTP"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	// Output:
	// 2026-07-28 echo-server
	// hello over HTTP
}

// A server for browsers and for clients of every age: pages of one origin
// may call it (CORS), the 2024-11-05 HTTP+SSE endpoint sits beside the
// Streamable HTTP one, and every session's client is pinged each 30
// seconds and dropped after two pings in a row go unanswered. A client
// given the /sse URL finds the old transport by itself (Connect falls
// back on ConnectSSE).
func ExampleCORSOptions() {
	srv := mcp.NewServer(&mcp.Implementation{Name: "web-server", Version: "1.0.0"}, &mcp.ServerOptions{
		KeepAlive: mcp.KeepAlive{Interval: 30 * time.Second, Timeout: 10 * time.Second, MaxMissed: 2},
	})
	opts := &streamable.Options{CORS: &streamable.CORSOptions{AllowedOrigins: []string{"https://app.example.com"}}}
	mux := http.NewServeMux()
	mux.Handle("/mcp", streamable.NewHandler(srv, opts))
	mux.Handle("/sse", streamable.NewSSEHandler(srv, opts))
	ts := httptest.NewServer(mux)
	defer ts.Close()

	session, err := streamable.Connect(context.Background(), mcp.NewClient(nil, nil), ts.URL+"/sse", nil)
	if err != nil {
		log.Fatal(err)
	}
	defer session.Close()
	fmt.Println(session.InitializeResult().ServerInfo.Name)
	// Output:
	// web-server
}
