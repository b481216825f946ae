package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestLoad_jsonrpc1: with -jsonrpc1 loadgen speaks JSON-RPC 1.0 to the
// demo server (with its -jsonrpc1), in process, over stdio and over HTTP
// POST, and counts the 1.0 answers as results: no errors.
func TestLoad_jsonrpc1(t *testing.T) {
	const n = 2000
	t.Run("inProcess", func(t *testing.T) {
		r, code, _ := load(t, "-jsonrpc1", "-n", fmt.Sprint(n), "-c", "2", "-depth", "8")
		if code != 0 {
			t.Errorf("exit %d", code)
		}
		clean(t, r, n)
	})
	t.Run("stdio", func(t *testing.T) {
		target, in, out := stdioServer(t, "-jsonrpc1")
		r, code, _ := load(t, "-jsonrpc1", "-n", fmt.Sprint(n), "-c", "2", "-depth", "8",
			"-method", "subtract", "-params", `[42,{{rand 10}}]`, target)
		if code != 0 {
			t.Errorf("exit %d", code)
		}
		clean(t, r, n)
		if v2, sent := lines(t, in, `"jsonrpc"`), lines(t, in, `"method":"subtract"`); v2 != 0 || sent != n {
			t.Errorf("the servers read %d requests, %d of them with a jsonrpc member; want %d, none", sent, v2, n)
		}
		if v2, got := lines(t, out, `"jsonrpc"`), lines(t, out, `,"error":null}`); v2 != 0 || got != n {
			t.Errorf("the servers wrote %d 1.0 results and %d 2.0 answers; want %d, none", got, v2, n)
		}
	})
	t.Run("httpPost", func(t *testing.T) {
		s := startServer(t, "-listen", "http://127.0.0.1:0", "-jsonrpc1")
		r, code, _ := load(t, "-jsonrpc1", "-n", fmt.Sprint(n), "-c", "2",
			"-method", "subtract", "-params", `[42,23]`, "-expect", "19", s.addr+"/rpc")
		if code != 0 {
			t.Errorf("exit %d", code)
		}
		clean(t, r, n)
		resp, err := http.Get(s.metrics)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if want := fmt.Sprintf(`mcpwire_jsonrpc1_requests_total{method="subtract"} %d`, n); !strings.Contains(string(body), want) {
			t.Errorf("the server's metrics lack %s", want)
		}
	})
}

func TestRun_jsonrpc1UsageErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-jsonrpc1", "-mcp"}, "MCP speaks JSON-RPC 2.0 only"},
		{[]string{"-jsonrpc1", "-batch", "2"}, "JSON-RPC 1.0 has no batches"},
		{[]string{"-jsonrpc1", "-params", `{"a":1}`}, "must be an array"},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), c.args, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("loadgen %q: exit %d, said %q; want exit 2 saying %q", c.args, code, stderr.String(), c.want)
		}
	}
}
