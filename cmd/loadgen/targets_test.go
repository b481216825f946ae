package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestLoad_eachTargetKind drives the demo server over each transport and
// checks the report against what the server says it answered.
func TestLoad_eachTargetKind(t *testing.T) {
	const n = 3000
	sock := filepath.Join(t.TempDir(), "demo.sock")
	for _, tc := range []struct {
		name   string
		server []string // -listen …
		path   string   // added to the server's URL
		args   []string
		method string // as the server counts it
	}{
		{"tcp-newline", []string{"-listen", "tcp://127.0.0.1:0"}, "", nil, "echo"},
		{"tcp-header", []string{"-listen", "tcp://127.0.0.1:0", "-framing", "header"}, "", []string{"-framing", "header"}, "echo"},
		{"unix", []string{"-listen", "unix://" + sock}, "", nil, "echo"},
		{"websocket", []string{"-listen", "http://127.0.0.1:0"}, "/ws", nil, "echo"},
		{"http-rpc", []string{"-listen", "http://127.0.0.1:0"}, "/rpc", nil, "echo"},
		{"mcp-http", []string{"-listen", "http://127.0.0.1:0"}, "/mcp", []string{"-mcp", "-tool", "echo", "-args", `{"message":"m{{seq}}"}`}, "tools/call"},
		{"http-rpc-pipelined", []string{"-listen", "http://127.0.0.1:0"}, "/rpc", []string{"-pipeline", "4"}, "echo"},
		{"mcp-http-pipelined", []string{"-listen", "http://127.0.0.1:0"}, "/mcp", []string{"-pipeline", "3", "-mcp", "-tool", "echo", "-args", `{"message":"m{{seq}}"}`}, "tools/call"},
		{"batch-notify", []string{"-listen", "tcp://127.0.0.1:0"}, "", []string{"-batch", "10", "-notify", "0.5", "-method", "subtract", "-params", "[{{rand 100}}, 1]"}, "subtract"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := startServer(t, tc.server...)
			args := append([]string{"-n", fmt.Sprint(n), "-c", "3", "-depth", "4"}, tc.args...)
			url := s.addr + tc.path
			if tc.path == "/ws" {
				url = "ws" + strings.TrimPrefix(url, "http")
			}
			all := runtime.GOMAXPROCS(0)
			r, code, out := load(t, append(args, url)...)
			if code != 0 {
				t.Errorf("exit %d:\n%s", code, out)
			}
			if after := runtime.GOMAXPROCS(0); after != all {
				t.Errorf("GOMAXPROCS %d after the run; %d before", after, all)
			}
			// Three connections to a byte stream run on one processor;
			// HTTP and WebSocket on all.
			want := all
			if kind, _, _ := strings.Cut(url, "://"); (kind == "tcp" || kind == "unix") && os.Getenv("GOMAXPROCS") == "" {
				want = 1
			}
			if r.CPU.Procs != want {
				t.Errorf("ran on %d processors; want %d", r.CPU.Procs, want)
			}
			got := r.Requests + r.Notifications
			if got != n {
				t.Errorf("requests %d + notifications %d = %d calls; want %d", r.Requests, r.Notifications, got, n)
			}
			clean(t, r, r.Requests)
			if tc.name == "batch-notify" && (r.Notifications < n/4 || r.Notifications > 3*n/4) {
				t.Errorf("notifications %d of %d calls: want about half", r.Notifications, n)
			}
			if seen := s.answered(t, tc.method); seen != r.Responses {
				t.Errorf("the server answered %d %s requests; the report says %d", seen, tc.method, r.Responses)
			}
		})
	}
}

// stdioServer writes a script that runs the demo server on stdio with its
// input and output copied to files, and returns the target and the files.
func stdioServer(t *testing.T, args ...string) (target, in, out string) {
	dir := t.TempDir()
	in, out = filepath.Join(dir, "in"), filepath.Join(dir, "out")
	script := filepath.Join(dir, "server.sh")
	body := fmt.Sprintf("#!/bin/sh\ntee -a %q | %q %s | tee -a %q\n", in, demoBin.Path(t), strings.Join(args, " "), out)
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	return "stdio:" + script, in, out
}

// lines counts the lines of a file that contain s.
func lines(t *testing.T, path, s string) int64 {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for l := range strings.SplitSeq(string(b), "\n") {
		if strings.Contains(l, s) {
			n++
		}
	}
	return n
}

// TestLoad_stdio spawns a server per connection and checks the report
// against the lines that crossed its stdin and stdout.
func TestLoad_stdio(t *testing.T) {
	const n = 2000
	t.Run("plain", func(t *testing.T) {
		target, in, out := stdioServer(t)
		r, code, _ := load(t, "-n", fmt.Sprint(n), "-c", "2", "-depth", "8", target)
		if code != 0 {
			t.Errorf("exit %d", code)
		}
		clean(t, r, n)
		if sent, got := lines(t, in, `"method":"echo"`), lines(t, out, `"result"`); sent != n || got != n {
			t.Errorf("the servers read %d requests and wrote %d answers; want %d each", sent, got, n)
		}
	})
	t.Run("mcp", func(t *testing.T) {
		target, in, out := stdioServer(t)
		r, code, _ := load(t, "-n", fmt.Sprint(n), "-c", "2", "-depth", "8", "-mcp", "-tool", "echo", "-args", `{"message":"hi"}`, target)
		if code != 0 {
			t.Errorf("exit %d", code)
		}
		clean(t, r, n)
		if inits := lines(t, in, `"method":"initialize"`); inits != 2 {
			t.Errorf("%d initialize requests; want one per session (2)", inits)
		}
		if sent, got := lines(t, in, `"method":"tools/call"`), lines(t, out, `"content"`); sent != n || got != n {
			t.Errorf("the servers read %d tools/call and wrote %d tool results; want %d each", sent, got, n)
		}
	})
}

// TestLoad_inProcessDefault: with no target, the demo server runs in
// process (the README's first command, shortened).
func TestLoad_inProcessDefault(t *testing.T) {
	r, code, out := load(t, "-d", "1s", "-c", "2")
	if code != 0 || !strings.Contains(r.Target, "in process") || !r.CPU.InProcess || r.CPU.Procs != runtime.GOMAXPROCS(0) {
		t.Errorf("exit %d, target %q:\n%s", code, r.Target, out)
	}
	clean(t, r, r.Requests)
	if len(r.Timeline) == 0 || r.Timeline[0].Responses == 0 {
		t.Errorf("timeline %+v: want the first second's answers", r.Timeline)
	}
	for _, want := range []string{"loadgen → the demo server, in process", "throughput", "p99"} {
		if !strings.Contains(out, want) {
			t.Errorf("the report printed lacks %q:\n%s", want, out)
		}
	}
}

// TestLoad_mcpInProcess: -mcp with no target opens MCP sessions on the
// demo server in process.
func TestLoad_mcpInProcess(t *testing.T) {
	r, code, _ := load(t, "-n", "500", "-mcp", "-resource", "test://static-text")
	if code != 0 {
		t.Errorf("exit %d", code)
	}
	clean(t, r, 500)
}

// TestLoad_interruptStillReports: Ctrl-C (the context ending), here once
// the server has answered 100 calls, stops the run early and it still
// reports, exit 0.
func TestLoad_interruptStillReports(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var answered atomic.Int64
	target := rawServer(t, func(id uint64, w *bufio.Writer) {
		result(w, id)
		if answered.Add(1) == 100 {
			cancel()
		}
	})
	var stdout, stderr bytes.Buffer
	exit := make(chan int, 1)
	go func() { exit <- run(ctx, []string{"-q", "-d", "1h", "-method", "x", target}, &stdout, &stderr) }()
	var code int
	select {
	case code = <-exit:
	case <-time.After(time.Minute):
		t.Fatal("the run went on a minute after it was interrupted")
	}
	if code != 0 || !strings.Contains(stdout.String(), "throughput") || strings.Contains(stdout.String(), "no answers") {
		t.Errorf("exit %d:\n%s%s", code, stdout.String(), stderr.String())
	}
}

// TestRun_usageErrors: a bad command line exits 2 and says what is wrong;
// a target that cannot be reached exits 1.
func TestRun_usageErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
		code int
	}{
		{[]string{"-c", "0"}, "-c 0", 2},
		{[]string{"-rate", "fast"}, "-rate fast", 2},
		{[]string{"-params", `{"a":`}, "not valid JSON", 2},
		{[]string{"-tool", "echo"}, "need -mcp", 2},
		{[]string{"-expect", "{"}, "-expect", 2},
		{[]string{"-notify", "2"}, "-notify", 2},
		{[]string{"-procs", "-1"}, "-procs -1", 2},
		{[]string{"ftp://x"}, "unknown scheme", 2},
		{[]string{"a", "b"}, "one TARGET argument at most", 2},
		{[]string{"-compare", "a.json"}, "second report", 2},
		{[]string{"-compare", "/nonexistent/a.json", "b.json"}, "a.json", 1},
		{[]string{"-n", "1", "tcp://127.0.0.1:1"}, "connection 1 of 1", 1},
	} {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), c.args, &stdout, &stderr)
		if code != c.code || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("loadgen %q: exit %d, said %q; want exit %d saying %q", c.args, code, stderr.String(), c.code, c.want)
		}
	}
}
