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
// before the tests is ignored. A stopped fasthttp.Server's worker cleaner
// (the floor's) sleeps out its 10 s before it notices: ignored.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.IgnoreCurrent(),
		goleak.IgnoreAnyFunction("github.com/valyala/fasthttp.(*workerPool).Start.func2"))
}

// TestServe serves each implementation on a loopback port: the call
// outside/check.lua makes first (test_echo, or MCP's initialize) is
// answered as the harness expects, and cancelling the context ends run.
func TestServe(t *testing.T) {
	for _, name := range impls {
		t.Run(name, func(t *testing.T) {
			url, stop := serve(t, name)
			body, want := `{"jsonrpc":"2.0","id":7,"method":"test_echo","params":["hi"]}`, `"result":"hi"`
			if name != "geth" {
				body, want = `{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`, `"protocolVersion":"2025-11-25"`
			}
			status, _, got := post(t, url+"/mcp", "", body)
			if status != http.StatusOK || !strings.Contains(got, want) {
				t.Fatalf("%d: %s; want %s", status, got, want)
			}
			stop()
		})
	}
}

// serve runs run with -impl name on a loopback port and returns its URL
// and a function that cancels run's context and checks that run returns
// without error.
func serve(t *testing.T, name string) (url string, stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	errR, errW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- run(ctx, []string{"-impl", name}, errW) }()
	stopped := false
	stop = func() {
		t.Helper()
		if stopped {
			return
		}
		stopped = true
		http.DefaultClient.CloseIdleConnections()
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Error(err)
			}
		case <-time.After(10 * time.Second):
			t.Error("run did not return after its context ended")
		}
		errW.Close()
	}
	t.Cleanup(stop)
	line, err := bufio.NewReader(errR).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	url, ok := strings.CutPrefix(strings.TrimSpace(line), "listening on ")
	if !ok {
		t.Fatalf("logged %q", line)
	}
	go io.Copy(io.Discard, errR)
	return url, stop
}

// post sends body to url as check.lua does (with session as
// Mcp-Session-Id unless it is empty) and returns the answer's status,
// Mcp-Session-Id and body.
func post(t *testing.T, url, session, body string) (int, string, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		req.Header.Set("Mcp-Session-Id", session)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, res.Header.Get("Mcp-Session-Id"), string(got)
}

func TestUnknownImpl(t *testing.T) {
	err := run(context.Background(), []string{"-impl", "nope"}, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "geth") {
		t.Fatalf("run = %v, want an error naming the choices", err)
	}
}
