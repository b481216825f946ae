package streamable

import "github.com/mcpwire/mcpwire/mcp"

// Under a stateless version (2026-07-28) each POST carries, beside
// MCP-Protocol-Version, headers that mirror its body for the proxies and
// load balancers in front of the server: Mcp-Method (the method),
// Mcp-Name (the tool's or prompt's name, the resource's URI) and, for
// tools/call, an Mcp-Param-{Name} for each argument the tool's input
// schema annotates with x-mcp-header. A value that is not plain visible
// ASCII is sent in base64. The handler checks them (checkHeaders).

// Header names of the stateless versions.
const (
	headerMethod     = "Mcp-Method"
	headerName       = "Mcp-Name"
	headerParamStart = "Mcp-Param-"
)

// metaVersionKey is the _meta member naming a request's version, as it
// stands in JSON.
var metaVersionKey = []byte(`"` + mcp.MetaProtocolVersion + `"`)

// base64Start and base64End wrap a header value sent in base64.
const (
	base64Start = "=?base64?"
	base64End   = "?="
)
