package main

import (
	"context"
	"net/http"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestFloor sends the floor each call outside/run.sh and check.lua make,
// and input it cannot answer, over HTTP: the answers are exactly these.
func TestFloor(t *testing.T) {
	url, _ := serve(t, "floor")
	bad := `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"the floor answers only the calls of bench/outside/check.lua"}}`
	for _, c := range []struct {
		name, path, session, body string
		status                    int
		sid, want                 string
	}{
		{"rpc", "/", "", `{"jsonrpc":"2.0","id":1000000001,"method":"test_echo","params":["hello #1000000001"]}`,
			200, "", `{"jsonrpc":"2.0","id":1000000001,"result":"hello #1000000001"}`},
		{"rpc-array", "/rpc", "", `{"jsonrpc":"2.0","id":42,"method":"echo","params":["hello #42"]}`,
			200, "", `{"jsonrpc":"2.0","id":42,"result":["hello #42"]}`},
		{"initialize", "/mcp", "", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"wrk","version":"1"}}}`,
			200, floorSession, `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"floor","version":"1"}}}`},
		{"initialized", "/mcp", floorSession, `{"jsonrpc":"2.0","method":"notifications/initialized"}`,
			202, "", ``},
		{"tools/call", "/mcp", "any", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hello #7"}}}`,
			200, "", `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"hello #7"}]}}`},
		{"rpc without id", "/rpc", "", `{"jsonrpc":"2.0","method":"echo","params":["x"]}`, 400, "", bad},
		{"rpc without params", "/rpc", "", `{"jsonrpc":"2.0","id":1,"method":"echo"}`, 400, "", bad},
		{"test_echo of an object", "/", "", `{"jsonrpc":"2.0","id":1,"method":"test_echo","params":{}}`, 400, "", bad},
		{"tools/call without message", "/mcp", "s", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}}`, 400, "", bad},
		{"unterminated message", "/mcp", "s", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{"message":"x`, 400, "", bad},
		{"empty id", "/mcp", "s", `{"jsonrpc":"2.0","id":,"method":"x"}`, 400, "", bad},
		{"other path", "/other", "", `{"jsonrpc":"2.0","id":1,"method":"echo","params":[]}`, 404, "", ``},
	} {
		t.Run(c.name, func(t *testing.T) {
			status, sid, got := post(t, url+c.path, c.session, c.body)
			if status != c.status || sid != c.sid || got != c.want {
				t.Errorf("%d, session %q: %s\nwant %d, session %q: %s", status, sid, got, c.status, c.sid, c.want)
			}
		})
	}
	res, err := http.Get(url + "/mcp")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET /mcp: %s, want 405", res.Status)
	}
}

// TestFloor_checkLua loads the floor with wrk through outside/check.lua
// in each of its modes, as outside/run.sh does, for a second each: every
// answer passes check.lua's checks. Skipped without wrk, or with -short.
func TestFloor_checkLua(t *testing.T) {
	wrk, err := exec.LookPath("wrk")
	if err != nil || testing.Short() {
		t.Skip("needs wrk, and no -short")
	}
	url, _ := serve(t, "floor")
	result := regexp.MustCompile(`RESULT calls/s=\d+ answered=(\d+) failures=(\d+)`)
	for _, c := range []struct{ path, mode, arg string }{
		{"/", "rpc", "test_echo"}, {"/rpc", "rpc-array", "echo"}, {"/mcp", "mcp", floorSession},
	} {
		t.Run(c.mode, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			out, err := exec.CommandContext(ctx, wrk, "-t", "1", "-c", "2", "-d", "1s", "--timeout", "5s",
				"-s", "../../outside/check.lua", url+c.path, "--", c.mode, c.arg).CombinedOutput()
			m := result.FindSubmatch(out)
			if err != nil || m == nil {
				t.Fatalf("wrk: %v\n%s", err, out)
			}
			n, _ := strconv.Atoi(string(m[1]))
			if n == 0 || string(m[2]) != "0" {
				t.Fatalf("%s", strings.TrimSpace(string(m[0])))
			}
		})
	}
}
