package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// README.md stays true: its commands run, and its session replays.

// mcpScript is what the README's server commands are given on stdin:
// the handshake, then a count of the demo's orders.
const mcpScript = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"readme","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sql_query","arguments":{"sql":"SELECT COUNT(*) AS n FROM orders"}}}
`

func readme(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestReadme_commands runs each "$ " command: go build builds; any other
// starts the server (the Inspector's line: the server it is given),
// which must answer the script with the demo's 400 orders. The demo
// database goes to a temporary cache directory.
func TestReadme_commands(t *testing.T) {
	cmds := regexp.MustCompile(`(?m)^    \$ (.+)$`).FindAllStringSubmatch(readme(t), -1)
	if len(cmds) < 3 {
		t.Fatalf("only %d commands in README.md", len(cmds))
	}
	dir := t.TempDir()
	for _, m := range cmds {
		line := m[1]
		cmd := strings.TrimPrefix(line, "npx @modelcontextprotocol/inspector ")
		if strings.HasPrefix(cmd, "go build ") {
			cmd = strings.Replace(cmd, "-o sqlmcp", "-o "+filepath.Join(dir, "sqlmcp"), 1)
			if out, err := exec.Command("bash", "-c", cmd).CombinedOutput(); err != nil {
				t.Fatalf("%s: %v\n%s", line, err, out)
			}
			continue
		}
		cmd = strings.Replace(cmd, "./sqlmcp", filepath.Join(dir, "sqlmcp"), 1)
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		c := exec.CommandContext(ctx, "bash", "-c", cmd)
		c.Env = append(os.Environ(), "XDG_CACHE_HOME="+filepath.Join(dir, "cache"), "SQLMCP_DSN=")
		c.Stdin = strings.NewReader(mcpScript)
		var stderr bytes.Buffer
		c.Stderr = &stderr
		out, err := c.Output()
		cancel()
		if err != nil {
			t.Fatalf("%s: %v\n%s", line, err, stderr.String())
		}
		if !strings.Contains(string(out), `"structuredContent":{"columns":["n"],"rows":[[400]]`) {
			t.Errorf("%s answered:\n%s\nstderr: %s", line, out, stderr.String())
		}
	}
}

// TestReadme_session replays the README's session against a fresh demo
// database: each "→ tool {args}" must be answered the text below it
// (the elapsed milliseconds aside).
func TestReadme_session(t *testing.T) {
	_, session, ok := strings.Cut(readme(t), "## A session")
	if !ok {
		t.Fatal("no session in README.md")
	}
	_, session, _ = strings.Cut(session, "```text\n")
	session, _, _ = strings.Cut(session, "```")
	calls := strings.Split(strings.TrimPrefix(session, "→ "), "\n→ ")
	if len(calls) < 3 {
		t.Fatalf("only %d calls in the session", len(calls))
	}
	b := newBackend(t, "sqlite")
	s := startStdio(t, "-dsn", b.dsn)
	elapsed := regexp.MustCompile(`; [0-9.]+ ms\)$`)
	for _, c := range calls {
		head, want, _ := strings.Cut(strings.TrimSpace(c), "\n")
		tool, args, _ := strings.Cut(head, " ")
		var a map[string]any
		if err := json.Unmarshal([]byte(args), &a); err != nil {
			t.Fatalf("%s: %v", head, err)
		}
		got := elapsed.ReplaceAllString(text(t, call(t, s.ClientSession, tool, a)), "; N ms)")
		if want = elapsed.ReplaceAllString(want, "; N ms)"); got != want {
			t.Errorf("%s:\ngot\n%s\nREADME says\n%s", head, got, want)
		}
	}
}
