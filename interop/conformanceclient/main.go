// Command conformanceclient is the "everything client" of the official
// MCP conformance suite (@modelcontextprotocol/conformance): the suite
// runs it as
//
//	conformanceclient <server-url>
//
// with MCP_CONFORMANCE_SCENARIO naming the scenario, and
// MCP_CONFORMANCE_PROTOCOL_VERSION (the revision the run targets) and
// MCP_CONFORMANCE_CONTEXT (a JSON object some scenarios need) set. It
// does what the scenario asks of a client through mcpwire's public client
// API alone (mcp.Client over mcp/streamable, authorized by an
// oauth.Authorizer in the auth/… scenarios), and exits 0 when that
// went through, 1 (with the reason on stderr) when it did not; the suite
// judges the rest from what it saw on the wire. A scenario it does not
// know exits 2.
//
// interop's TestConformance_client builds it and runs the suite's client
// scenarios with it.
package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/mcpwire/mcpwire/mcp/streamable"
)

// timeout bounds one scenario's run; the suite's own is 30s.
const timeout = 25 * time.Second

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: conformanceclient <server-url> (MCP_CONFORMANCE_SCENARIO names the scenario)")
		os.Exit(2)
	}
	name := os.Getenv("MCP_CONFORMANCE_SCENARIO")
	sc, ok := scenarios[name]
	if !ok {
		fmt.Fprintf(os.Stderr, "conformanceclient: unknown scenario %q\n", name)
		os.Exit(2)
	}
	if err := run(sc, os.Args[len(os.Args)-1], os.Getenv("MCP_CONFORMANCE_PROTOCOL_VERSION")); err != nil {
		fmt.Fprintf(os.Stderr, "conformanceclient: %s: %v\n", name, err)
		os.Exit(1)
	}
}

// run opens a session with the server at url and runs sc in it, within
// timeout; the session is closed at the end.
func run(sc scenario, url, version string) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var auth streamable.Authorizer
	if sc.auth != nil {
		a, err := sc.auth()
		if err != nil {
			return err
		}
		auth = a
	}
	s, err := connect(ctx, url, version, sc.opts, auth)
	if err != nil {
		return err
	}
	defer s.Close()
	return sc.run(ctx, s)
}
