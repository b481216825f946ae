package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// ants (under mcpwire's pool) starts goroutines when loaded: what runs
// before the tests is ignored.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m, goleak.IgnoreCurrent()) }

// TestServe serves each implementation on a loopback port: the call
// outside/check.lua makes first (test_echo, or MCP's initialize) is
// answered as the harness expects, and cancelling the context ends run.
func TestServe(t *testing.T) {
	for _, name := range impls {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			errR, errW := io.Pipe()
			done := make(chan error, 1)
			go func() { done <- run(ctx, []string{"-impl", name}, errW) }()
			line, err := bufio.NewReader(errR).ReadString('\n')
			if err != nil {
				t.Fatal(err)
			}
			url, ok := strings.CutPrefix(strings.TrimSpace(line), "listening on ")
			if !ok {
				t.Fatalf("logged %q", line)
			}
			go io.Copy(io.Discard, errR)
			body, want := `{"jsonrpc":"2.0","id":7,"method":"test_echo","params":["hi"]}`, `"result":"hi"`
			if name != "geth" {
				body, want = `{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`, `"protocolVersion":"2025-11-25"`
			}
			req, err := http.NewRequest(http.MethodPost, url+"/mcp", strings.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(res.Body)
			res.Body.Close()
			if err != nil || res.StatusCode != http.StatusOK || !strings.Contains(string(got), want) {
				t.Fatalf("%s, %v: %s; want %s", res.Status, err, got, want)
			}
			http.DefaultClient.CloseIdleConnections()
			cancel()
			select {
			case err := <-done:
				if err != nil {
					t.Fatal(err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("run did not return after its context ended")
			}
			errW.Close()
		})
	}
}

func TestUnknownImpl(t *testing.T) {
	err := run(context.Background(), []string{"-impl", "nope"}, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "geth") {
		t.Fatalf("run = %v, want an error naming the choices", err)
	}
}
