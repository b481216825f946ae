package interop_test

import (
	"testing"

	"github.com/mcpwire/mcpwire/internal/nodetest"
	"github.com/mcpwire/mcpwire/internal/testproc"
)

// TestInterop_typescriptSDKOverStdio builds the demo server and runs
// stdio.test.mjs with Node's test runner: every check there must pass.
func TestInterop_typescriptSDKOverStdio(t *testing.T) {
	runNodeTests(t, "stdio.test.mjs", "stdio")
}

// TestInterop_typescriptSDKOverStreamableHTTP builds the demo server and
// runs http.test.mjs with Node's test runner: the checks of the stdio test,
// each against a demo server of its own serving Streamable HTTP on a free
// loopback port, must all pass.
func TestInterop_typescriptSDKOverStreamableHTTP(t *testing.T) {
	runNodeTests(t, "http.test.mjs", "Streamable HTTP")
}

// demoBin is the demo server, built for these tests.
var demoBin = testproc.NewBinary("github.com/mcpwire/mcpwire/cmd/demoserver")

func TestMain(m *testing.M) { testproc.Main(m, demoBin.Remove, conformanceClient.Remove) }

// runNodeTests runs file with Node's test runner, DEMOSERVER naming the
// built demo server: it fails unless node ran at least one test and none
// failed.
func runNodeTests(t *testing.T, file, over string) {
	t.Helper()
	node := nodetest.Node(t, ".")
	pass := nodetest.Run(t, node, file, "DEMOSERVER="+demoBin.Path(t))
	t.Logf("TypeScript SDK interop over %s: %s checks passed", over, pass)
}
