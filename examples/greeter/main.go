// Command greeter is an MCP server with one typed tool, greet, served
// over stdio (one session on standard input and output, as MCP clients
// start local servers) or, with -http ADDR, over Streamable HTTP at
// http://ADDR/mcp. README.md shows this file as it is.
package main

import (
	"context"
	"flag"
	"log"
	"net/http"

	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/mcp/streamable"
	"github.com/mcpwire/mcpwire/transport"
)

// GreetArgs are greet's arguments: the tool's input schema is inferred
// from this type, and arguments are validated against it before greet runs.
type GreetArgs struct {
	Name string `json:"name" jsonschema:"who to greet"`
}

// Greeting is greet's structured output: the output schema comes from
// this type, and the result carries it as structuredContent and as text.
type Greeting struct {
	Text string `json:"text"`
}

func greet(ctx context.Context, req *mcp.CallToolRequest, in GreetArgs) (*mcp.CallToolResult, Greeting, error) {
	return nil, Greeting{Text: "Hello, " + in.Name + "!"}, nil
}

// newServer returns the server with its one tool.
func newServer() (*mcp.Server, error) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "greeter", Version: "1.0.0"}, nil)
	err := mcp.AddTool(srv, &mcp.Tool{Name: "greet", Description: "Greets someone by name"}, greet)
	return srv, err
}

func main() {
	addr := flag.String("http", "", "serve Streamable HTTP at `ADDR`/mcp (e.g. 127.0.0.1:8080) instead of stdio")
	flag.Parse()
	srv, err := newServer()
	if err != nil {
		log.Fatal(err)
	}
	if *addr == "" {
		// Until standard input ends.
		if err := srv.Run(context.Background(), transport.NewStdio()); err != nil {
			log.Fatal(err)
		}
		return
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", streamable.NewHandler(srv, nil))
	log.Printf("serving MCP at http://%s/mcp", *addr)
	hs := transport.NewHTTPServer(mux, &transport.HTTPServerOptions{Addr: *addr, EventStreams: true})
	log.Fatal(hs.ListenAndServe())
}
