package main

import (
	"context"
	"log/slog"
	"strings"

	"github.com/mcpwire/mcpwire/mcp"
)

// serveHTTP is where the Streamable HTTP listener plugs in: given the
// demo's MCP server (its fixtures and plain JSON-RPC methods), it serves
// Streamable HTTP at /mcp on the address of cfg.listen
// ("http://HOST:PORT") until ctx is done (SIGINT/SIGTERM), then shuts
// down within cfg.grace. While it is nil, -listen http://… is refused as a
// usage error, like any address transport.ParseAddr does not know.
// test_reconnection (fixtures_tools.go) needs a hook of that transport
// too.
var serveHTTP func(ctx context.Context, srv *mcp.Server, cfg config, log *slog.Logger) error

// isHTTP reports whether a -listen address asks for Streamable HTTP.
func isHTTP(listen string) bool {
	return strings.HasPrefix(listen, "http://")
}
