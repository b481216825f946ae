package main

import (
	"path/filepath"
	"testing"

	"github.com/mcpwire/mcpwire/internal/nodetest"
	"github.com/mcpwire/mcpwire/internal/testproc"
)

// The official TypeScript SDK's client against the server, over stdio
// with each database and over Streamable HTTP with SQLite: the checks of
// interop/sqlmcp.test.mjs, run by Node's test runner. The SDK is the
// one the root's interop tests pin (npm ci --prefix interop); without it
// the test skips, unless MCPWIRE_INTEROP=required.

func TestInterop_typescriptSDK(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b *backend) {
		runNode(t, b, nil)
	})
	t.Run("streamable-http", func(t *testing.T) {
		b := newBackend(t, "sqlite")
		p := testproc.Start(t, binary(t), []string{"-listen", "http://127.0.0.1:0", "-dsn", b.dsn, "-allow-write"}, "addr")
		runNode(t, b, []string{"SQLMCP_URL=" + p.Value("addr") + "/mcp"})
	})
}

// runNode runs the checks against b's database; env adds to the
// environment.
func runNode(t *testing.T, b *backend, env []string) {
	t.Helper()
	sdk, err := filepath.Abs("../../interop")
	if err != nil {
		t.Fatal(err)
	}
	node := nodetest.Node(t, sdk)
	pass := nodetest.Run(t, node, "interop/sqlmcp.test.mjs", append(env, "MCP_SDK_DIR="+sdk, "SQLMCP="+binary(t), "SQLMCP_DSN="+b.dsn, "SQLMCP_KIND="+b.kind)...)
	t.Logf("TypeScript SDK: %s checks passed", pass)
}
