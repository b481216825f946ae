package interop_test

import (
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/internal/nodetest"
	"github.com/mcpwire/mcpwire/internal/testproc"
)

// conformanceClient is the suite's "everything client", built for these
// tests.
var conformanceClient = testproc.NewBinary("github.com/mcpwire/mcpwire/interop/conformanceclient")

// authScenario reports whether a client scenario tests authorization
// (auth/…): mcpwire's client does not speak OAuth yet, so those are
// skipped.
func authScenario(name string) bool { return strings.HasPrefix(name, "auth/") }

// TestConformance_client runs the official conformance suite's client
// scenarios (0.2.0-alpha.12, client --requirements 2025-11-25, in
// parallel as the suite runs them) with the conformance client
// (./conformanceclient, mcpwire's client over Streamable HTTP) against
// the suite's own servers: every check of every scenario must pass, but
// for the authorization ones (auth/…), skipped, and those
// expectedFailuresFile lists. The scenarios run without scoring are
// judged too.
func TestConformance_client(t *testing.T) {
	if raceEnabled {
		t.Skip("the conformance suite runs in the test pass without -race")
	}
	node := nodetest.Node(t, ".")
	const rev = "2025-11-25"
	checks, report, _ := runSuite(t, node, suiteNext, "client", "--command", conformanceClient.Path(t),
		"--requirements", rev, "--expected-failures", expectedFailuresFile)
	if len(checks) == 0 {
		t.Fatalf("conformance suite: no check read\n%s", report)
	}
	// The suite's exit status counts the auth/ scenarios: the checks are
	// judged instead.
	v := judge(t, checks, listed(t, node, rev, "client"), expectedFailures(t, "client"), authScenario)
	t.Logf("conformance 0.2.0-alpha.12 client --requirements %s: %d scenarios passed, %d failed, %d failed as expected, %d skipped (auth/)",
		rev, v.passed, v.failed, v.expected, v.skipped)
}
