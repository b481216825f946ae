// Package mcptest holds what the tests of package mcp and of the packages
// built on it (mcp/streamable) share: a server with one echo tool, a
// logger the test can read, and small assertions. It is for tests only.
package mcptest

import (
	"context"
	"encoding/json"
	"log/slog"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/internal/testproc"
	"github.com/mcpwire/mcpwire/mcp"
)

// EchoServer returns a server with the echo tool (AddEcho).
func EchoServer(t testing.TB) *mcp.Server {
	t.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "echo", Version: "1"}, nil)
	Must(t, AddEcho(srv))
	return srv
}

// AddEcho adds the smallest tool: echo {message} → one text block.
func AddEcho(srv *mcp.Server) error {
	type in struct {
		Message string `json:"message"`
	}
	return mcp.AddTool(srv, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, a in) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: a.Message}}}, nil, nil
	})
}

// Must fails the test at once when err is not nil.
func Must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// WaitErr waits for a session's end (wait is its Wait) and returns why;
// the test fails when it has not ended within ten seconds.
func WaitErr(t testing.TB, wait func() error) error {
	t.Helper()
	ch := make(chan error, 1)
	go func() { ch <- wait() }()
	select {
	case err := <-ch:
		return err
	case <-time.After(10 * time.Second):
		t.Fatal("the session did not end")
		return nil
	}
}

// WireMsg is a JSON-RPC message as the raw peers of the tests read it.
type WireMsg struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
}

// LogBuffer collects what a logger writes, for the tests to look at. Safe
// for concurrent use.
type LogBuffer struct{ testproc.LockedBuffer }

// Logger returns a text logger writing into the buffer.
func (l *LogBuffer) Logger() *slog.Logger { return slog.New(slog.NewTextHandler(l, nil)) }
