package main

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/internal/testproc"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/mcp/streamable"
)

// Go MCP clients of the built command, over stdio and Streamable HTTP.

// logFile is a process's stderr, written straight to a file by the
// process and read back whenever the test likes.
type logFile string

func (l logFile) String() string {
	b, _ := os.ReadFile(string(l))
	return string(b)
}

// stdioSession is a client session with the command run on stdio.
type stdioSession struct {
	*mcp.ClientSession
	cmd    *exec.Cmd
	stderr logFile
}

var testClient = mcp.NewClient(&mcp.Implementation{Name: "sqlmcp-test", Version: "1"}, nil)

// startStdio starts the command with args and connects to it over
// stdio; the session is closed (and the command ends) with the test.
func startStdio(t testing.TB, args ...string) *stdioSession {
	t.Helper()
	cmd := exec.Command(binary(t), args...)
	stderr := logFile(filepath.Join(t.TempDir(), "stderr"))
	f, err := os.Create(string(stderr))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close() // the process has its own copy
	cmd.Stderr = f
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := testClient.ConnectCommand(ctx, cmd)
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, stderr)
	}
	t.Cleanup(func() {
		s.Close()
		if t.Failed() {
			t.Logf("sqlmcp %q said:\n%s", args, stderr)
		}
	})
	return &stdioSession{ClientSession: s, cmd: cmd, stderr: stderr}
}

// startHTTP starts the command serving Streamable HTTP on a free
// loopback port and connects to it.
func startHTTP(t testing.TB, args ...string) *mcp.ClientSession {
	t.Helper()
	p := testproc.Start(t, binary(t), append([]string{"-listen", "http://127.0.0.1:0"}, args...), "addr")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := streamable.Connect(ctx, testClient, p.Value("addr")+"/mcp", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// call calls a tool; the call itself must not fail (a tool error is a
// result).
func call(t testing.TB, s *mcp.ClientSession, tool string, args any) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := s.CallTool(ctx, tool, args)
	if err != nil {
		t.Fatalf("%s %v: %v", tool, args, err)
	}
	return res
}

// text is the text of a result's first block.
func text(t testing.TB, res *mcp.CallToolResult) string {
	t.Helper()
	if len(res.Content) == 0 {
		t.Fatalf("no content in %+v", res)
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("content %T, want text", res.Content[0])
	}
	return tc.Text
}

// ok checks that res is no tool error and decodes its structured
// content into out.
func ok(t testing.TB, res *mcp.CallToolResult, out any) {
	t.Helper()
	if res.IsError {
		t.Fatalf("tool error: %s", text(t, res))
	}
	raw, _ := res.StructuredContent.(json.RawMessage)
	if raw == nil {
		t.Fatalf("no structured content in %+v", res)
	}
	if err := json.Unmarshal(raw, out); err != nil {
		t.Fatalf("structured content %s: %v", raw, err)
	}
}

// toolError checks that res is a tool error whose text holds each of
// want, and returns the text.
func toolError(t testing.TB, res *mcp.CallToolResult, want ...string) string {
	t.Helper()
	if !res.IsError {
		t.Fatalf("want a tool error, got %s", res.StructuredContent)
	}
	msg := text(t, res)
	for _, w := range want {
		if !strings.Contains(msg, w) {
			t.Errorf("tool error %q does not say %q", msg, w)
		}
	}
	return msg
}

// rpcCode returns the JSON-RPC code of err (0: none).
func rpcCode(err error) codec.Code {
	var ce *codec.Error
	if !errors.As(err, &ce) {
		return 0
	}
	return ce.Code
}
