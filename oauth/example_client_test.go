package oauth_test

import (
	"context"
	"fmt"
	"log"

	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/mcp/streamable"
	"github.com/mcpwire/mcpwire/oauth"
)

// A command-line MCP client of a server that requires authorization: the
// first request's 401 starts the flow, the user approves in a browser
// (here: the URL printed), the redirect comes back to a loopback port,
// and every request then carries the token, refreshed as needed.
func ExampleNewAuthorizer() {
	redirect, err := oauth.NewLoopbackRedirect(func(authURL string) error {
		fmt.Println("Open this URL to sign in:", authURL)
		return nil
	})
	if err != nil {
		log.Fatal(err)
	}
	defer redirect.Close()
	a, err := oauth.NewAuthorizer(&oauth.AuthorizerOptions{Redirect: redirect, ClientName: "my-cli"})
	if err != nil {
		log.Fatal(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "my-cli", Version: "1.0.0"}, nil)
	session, err := streamable.Connect(context.Background(), client, "https://mcp.example.com/mcp",
		&streamable.ClientOptions{Authorizer: a})
	if err != nil {
		log.Fatal(err)
	}
	defer session.Close()
}
