package demoserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/internal/testproc"
)

// vector is one case of testdata/jsonrpc/spec-examples.json.
type vector struct {
	Name     string  `json:"name"`
	Request  string  `json:"request"`
	Response *string `json:"response"`
}

func loadVectors(t *testing.T) []vector {
	t.Helper()
	data, err := os.ReadFile("../../testdata/jsonrpc/spec-examples.json")
	if err != nil {
		t.Fatal(err)
	}
	var vs []vector
	if err := json.Unmarshal(data, &vs); err != nil {
		t.Fatal(err)
	}
	if len(vs) < 15 {
		t.Fatalf("only %d vectors", len(vs))
	}
	return vs
}

// demoBin is the demoserver command (a main around Run), built for the
// tests that run it as a process.
var demoBin = testproc.NewBinary("github.com/mcpwire/mcpwire/cmd/demoserver")

// build returns the built demoserver command.
func build(t *testing.T) string { return demoBin.Path(t) }

// TestMain: the tests that serve in this process (sessions, Run, Start)
// and the peers of the built binary leave no goroutine.
func TestMain(m *testing.M) { testproc.Main(m, demoBin.Remove) }

// client speaks one framing over a stream.
type client struct {
	t       *testing.T
	w       io.Writer
	br      *bufio.Reader
	framing codec.Framing
}

func (c *client) send(msg string) {
	c.t.Helper()
	if _, err := c.w.Write(codec.AppendFrame(nil, c.framing, []byte(msg))); err != nil {
		c.t.Fatal(err)
	}
}

func (c *client) recv() []byte {
	c.t.Helper()
	if c.framing == codec.Newline {
		line, err := c.br.ReadBytes('\n')
		if err != nil {
			c.t.Fatalf("recv: %v", err)
		}
		return line
	}
	n := -1
	for {
		line, err := c.br.ReadString('\n')
		if err != nil {
			c.t.Fatalf("recv header: %v", err)
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			break
		}
		if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
			n, _ = strconv.Atoi(v)
		}
	}
	if n < 0 {
		c.t.Fatal("no Content-Length")
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(c.br, body); err != nil {
		c.t.Fatal(err)
	}
	return body
}

const sentinel = `{"jsonrpc":"2.0","id":"sentinel","method":"echo","params":["end"]}`

// checkVectors runs every vector; each is followed by a sentinel request so
// that "no response" is proven by the sentinel's answer coming alone. The
// two answers may come in either order (a pooled handler may finish after
// the sentinel's: JSON-RPC sets no order).
func checkVectors(t *testing.T, c *client) {
	sentinelAnswer := []byte(`{"jsonrpc":"2.0","id":"sentinel","result":["end"]}`)
	for _, v := range loadVectors(t) {
		c.send(v.Request)
		c.send(sentinel)
		got := [][]byte{c.recv()}
		if v.Response != nil {
			got = append(got, c.recv())
			if sameJSON(t, got[0], sentinelAnswer) {
				got[0], got[1] = got[1], got[0]
			}
			if !sameJSON(t, got[0], []byte(*v.Response)) {
				t.Errorf("%s:\n got  %s\n want %s", v.Name, got[0], *v.Response)
			}
		}
		if last := got[len(got)-1]; !sameJSON(t, last, sentinelAnswer) {
			t.Errorf("%s: want the sentinel's answer, got %s", v.Name, last)
		}
	}
}

// sameJSON compares two responses as JSON values. Error messages may say
// more than the specification's text; code, id, result and shape must match.
func sameJSON(t *testing.T, got, want []byte) bool {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Errorf("response is not JSON: %q", got)
		return false
	}
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatal(err)
	}
	return reflect.DeepEqual(dropMessages(g), dropMessages(w))
}

func dropMessages(v any) any {
	switch x := v.(type) {
	case []any:
		for i := range x {
			x[i] = dropMessages(x[i])
		}
	case map[string]any:
		if e, ok := x["error"].(map[string]any); ok {
			if _, ok := e["message"].(string); ok {
				e["message"] = "<text>"
			}
			delete(e, "data")
		}
	}
	return v
}

// startStdio starts bin on stdio in framing f, with args besides.
func startStdio(t *testing.T, bin string, f codec.Framing, args ...string) (*exec.Cmd, *client, io.WriteCloser, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"-framing", f.String()}, args...)...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	return cmd, &client{t: t, w: stdin, br: bufio.NewReader(stdout), framing: f}, stdin, &stderr
}

func TestDemoserver_specVectorsOverStdio(t *testing.T) {
	bin := build(t)
	for _, f := range []codec.Framing{codec.Newline, codec.Header} {
		t.Run("framing="+f.String(), func(t *testing.T) {
			cmd, c, stdin, stderr := startStdio(t, bin, f)
			checkVectors(t, c)
			// Closing stdin ends the server cleanly, with nothing more on stdout.
			stdin.Close()
			rest, _ := io.ReadAll(c.br)
			if err := cmd.Wait(); err != nil {
				t.Fatalf("exit: %v\nstderr: %s", err, stderr)
			}
			if len(rest) > 0 {
				t.Fatalf("unexpected output after the last response: %q", rest)
			}
		})
	}
}

func TestDemoserver_specVectorsOverTCPAndUnix(t *testing.T) {
	bin := build(t)
	sock := filepath.Join(t.TempDir(), "d.sock")
	for _, tc := range []struct {
		listen  string
		network string
		addr    string
		framing codec.Framing
	}{
		{"tcp://127.0.0.1:0", "tcp", "", codec.Newline},
		{"tcp://127.0.0.1:0", "tcp", "", codec.Header},
		{"unix://" + sock, "unix", sock, codec.Newline},
	} {
		t.Run(tc.network+"/"+tc.framing.String(), func(t *testing.T) {
			cmd, addr, _ := startListening(t, bin, "-listen", tc.listen, "-framing", tc.framing.String())
			_, hostport, ok := strings.Cut(addr, "://")
			if !ok {
				t.Fatalf("no address logged")
			}
			nc, err := net.DialTimeout(tc.network, hostport, 5*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			defer nc.Close()
			nc.SetDeadline(time.Now().Add(60 * time.Second))
			checkVectors(t, &client{t: t, w: nc, br: bufio.NewReader(nc), framing: tc.framing})

			terminate(t, cmd, nil) // SIGTERM shuts it down cleanly
		})
	}
}

// runArgs runs the command in this process (Run) with args; stdin is empty.
func runArgs(args ...string) (code int, stdout, stderr string) {
	var out, errs bytes.Buffer
	code = Run(args, strings.NewReader(""), &out, &errs)
	return code, out.String(), errs.String()
}

func TestDemoserver_helpIsNotAnError(t *testing.T) {
	for _, arg := range []string{"-h", "-help", "--help"} {
		code, stdout, stderr := runArgs(arg)
		if code != 0 {
			t.Errorf("%s: exit %d, want 0; stderr: %s", arg, code, stderr)
		}
		if !strings.HasPrefix(stdout, "Usage: demoserver") {
			t.Errorf("%s: usage on stdout is %q", arg, stdout)
		}
		for _, want := range []string{"-listen", "-shutdown-timeout", "-page-size", "-inline", "-max-inflight N", "-overload block|reject", "-metrics ADDR", "-adaptive", "sleep ", "cached_sleep "} {
			if !strings.Contains(stdout, want) {
				t.Errorf("%s: the usage does not mention %q", arg, want)
			}
		}
		if stderr != "" {
			t.Errorf("%s: stderr %q", arg, stderr)
		}
	}
}

func TestDemoserver_rejectsBadFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string // on stderr
	}{
		{[]string{"-nope"}, "flag provided but not defined: -nope\nUsage: demoserver"},
		{[]string{"-shutdown-timeout", "soon"}, `invalid value "soon" for flag -shutdown-timeout`},
		{[]string{"-framing", "xml"}, "demoserver: codec: "},
		{[]string{"-listen", "ftp://x"}, "demoserver: transport: "},
		{[]string{"-listen", "http://x"}, "demoserver: -listen http://x: want http://HOST:PORT"},
		{[]string{"extra"}, `demoserver: unexpected arguments: ["extra"]`},
		{[]string{"-page-size", "0"}, "demoserver: -page-size and -watch-interval must be positive"},
		{[]string{"-watch-interval", "-1s"}, "demoserver: -page-size and -watch-interval must be positive"},
		{[]string{"-max-inflight", "0"}, "demoserver: -max-inflight must be positive"},
		{[]string{"-overload", "drop"}, "demoserver: -overload drop: want block or reject"},
		{[]string{"-metrics", "9090"}, "demoserver: -metrics 9090: want HOST:PORT"},
		{[]string{"-inline=maybe"}, `invalid boolean value "maybe" for -inline`},
		{[]string{"-oauth-issuer", "http://127.0.0.1:1", "-auth-token", "x"}, "demoserver: -auth-token and -oauth-issuer cannot be used together"},
		{[]string{"-oauth-scopes", "add:demo.write"}, "demoserver: -oauth-audience, -oauth-scopes, -oauth-client-id and -oauth-client-secret need -oauth-issuer"},
		{[]string{"-oauth-issuer", "http://127.0.0.1:1"}, "demoserver: -oauth-issuer with -listen stdio, tcp://… or unix://… needs -oauth-audience"},
		{[]string{"-listen", "http://127.0.0.1:0", "-oauth-issuer", "http://127.0.0.1:1", "-oauth-scopes", "add"}, `demoserver: -oauth-scopes "add": want TOOL:SCOPE pairs`},
		{[]string{"-listen", "http://127.0.0.1:0", "-oauth-issuer", "http://127.0.0.1:1", "-oauth-client-secret", "s"}, "demoserver: -oauth-client-secret needs -oauth-client-id"},
	} {
		code, stdout, stderr := runArgs(tc.args...)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2", tc.args, code)
		}
		if !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: stderr %q, want it to contain %q", tc.args, stderr, tc.want)
		}
		if stdout != "" {
			t.Errorf("%v: stdout %q", tc.args, stdout)
		}
	}
}

func TestDemoserver_exitsOnSIGTERMWhileStdinStaysOpen(t *testing.T) {
	bin := build(t)
	cmd, c, stdin, stderr := startStdio(t, bin, codec.Newline)
	defer stdin.Close()
	c.send(`{"jsonrpc":"2.0","id":1,"method":"echo","params":[1]}`)
	if got := c.recv(); !sameJSON(t, got, []byte(`{"jsonrpc":"2.0","id":1,"result":[1]}`)) {
		t.Fatalf("got %s", got)
	}
	start := time.Now()
	terminate(t, cmd, stderr)
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("took %v to exit", d)
	}
}

// terminate sends SIGTERM and expects a clean exit within 10 seconds.
func terminate(t *testing.T, cmd *exec.Cmd, stderr fmt.Stringer) {
	t.Helper()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 1)
	go func() { errc <- cmd.Wait() }()
	select {
	case err := <-errc:
		if err != nil {
			t.Fatalf("exit after SIGTERM: %v\n%s", err, stderr)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no exit after SIGTERM")
	}
}

// TestDemoserver_failsWhenItCannotServeMetrics: a -metrics address that
// cannot be bound is an error of serving (exit 1), reported before the
// server listens.
func TestDemoserver_failsWhenItCannotServeMetrics(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	code, stdout, stderr := runArgs("-listen", "tcp://127.0.0.1:0", "-metrics", taken.Addr().String())
	if code != 1 || !strings.Contains(stderr, "demoserver: listen tcp "+taken.Addr().String()) || stdout != "" {
		t.Errorf("exit %d, stdout %q, stderr %q; want 1 and the listen error", code, stdout, stderr)
	}
}
