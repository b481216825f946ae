package demoserver

import (
	"bufio"
	"encoding/json"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/codec"
)

// The token, the forbidden methods and the rate limit of -auth-token,
// -forbid and -rate, checked against the built server over each stream
// transport: exact codes, and data where the contract puts some.

const demoToken = "t0k3n-for-tests"

// withToken is a call of method with params {…, "_meta": {"authorization":
// auth}}: the credentials of stream transports.
func withToken(id, method, auth string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"` + method + `","params":{"message":"hi","_meta":{"authorization":"` + auth + `"}}}`
}

// streamServer is a demo server on one stream transport; dial opens a
// session of it (stdio has one only: dial may be called once).
type streamServer struct {
	name string
	dial func(t *testing.T) *client
}

// streamServers starts the built server with args on stdio, TCP and a
// Unix socket.
func streamServers(t *testing.T, args ...string) []streamServer {
	t.Helper()
	bin := build(t)
	var out []streamServer

	stdioUsed := false
	out = append(out, streamServer{"stdio", func(t *testing.T) *client {
		if stdioUsed {
			t.Fatal("stdio has one session")
		}
		stdioUsed = true
		cmd, c, stdin, stderr := startStdio(t, bin, codec.Newline, args...)
		t.Cleanup(func() {
			stdin.Close()
			if err := cmd.Wait(); err != nil {
				t.Errorf("exit: %v\n%s", err, stderr)
			}
		})
		return c
	}})

	sock := filepath.Join(t.TempDir(), "d.sock")
	for _, listen := range []string{"tcp://127.0.0.1:0", "unix://" + sock} {
		network, _, _ := strings.Cut(listen, "://")
		cmd, addr, logs := startListening(t, bin, append([]string{"-listen", listen}, args...)...)
		t.Cleanup(func() {
			terminate(t, cmd, logs)
		})
		_, hostport, _ := strings.Cut(addr, "://")
		out = append(out, streamServer{network, func(t *testing.T) *client {
			nc, err := net.DialTimeout(network, hostport, 5*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { nc.Close() })
			nc.SetDeadline(time.Now().Add(30 * time.Second))
			return &client{t: t, w: nc, br: bufio.NewReader(nc), framing: codec.Newline}
		}})
	}
	return out
}

// roundTrip sends msg and decodes the one answer.
func (c *client) roundTrip(msg string) *answer {
	c.t.Helper()
	c.send(msg)
	return c.answer()
}

// answer decodes the next message.
func (c *client) answer() *answer {
	c.t.Helper()
	raw := c.recv()
	a := &answer{raw: raw, at: time.Now()}
	if err := json.Unmarshal(raw, &a.msg); err != nil {
		c.t.Fatalf("not JSON: %q", raw)
	}
	return a
}

// retryAfterMs returns the answer's data.retryAfterMs, failing the test
// when it has none.
func (a *answer) retryAfterMs(t *testing.T) int {
	t.Helper()
	var data struct {
		RetryAfterMs *int `json:"retryAfterMs"`
	}
	if a.msg.Error == nil || json.Unmarshal(a.msg.Error.Data, &data) != nil || data.RetryAfterMs == nil {
		t.Fatalf("no data.retryAfterMs in %s", a.raw)
	}
	return *data.RetryAfterMs
}

func TestDemoserver_authTokenOnStreamTransports(t *testing.T) {
	for _, s := range streamServers(t, "-auth-token", demoToken, "-forbid", "sum,notify_hello") {
		t.Run(s.name, func(t *testing.T) {
			c := s.dial(t)
			for _, tc := range []struct {
				name, msg string
				code      int
				result    string
			}{
				{"no params", `{"jsonrpc":"2.0","id":1,"method":"echo"}`, -32009, ""},
				{"no _meta", `{"jsonrpc":"2.0","id":2,"method":"subtract","params":[42,23]}`, -32009, ""},
				{"wrong token", withToken("3", "echo", "Bearer nope"), -32009, ""},
				{"another scheme", withToken("4", "echo", "Basic "+demoToken), -32009, ""},
				{"the token", withToken("5", "echo", "Bearer "+demoToken), 0, `{"message":"hi","_meta":{"authorization":"Bearer ` + demoToken + `"}}`},
				{"a forbidden method", withToken("6", "sum", "Bearer "+demoToken), -32010, ""},
				// MCP itself, with the token in _meta.
				{"initialize", `{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"},"_meta":{"authorization":"Bearer ` + demoToken + `"}}}`, 0, ""},
				{"tools/call", `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"echo","arguments":{"message":"over ` + s.name + `"},"_meta":{"authorization":"Bearer ` + demoToken + `"}}}`, 0, `{"content":[{"type":"text","text":"over ` + s.name + `"}]}`},
				{"tools/call without it", `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"echo","arguments":{"message":"x"}}}`, -32009, ""},
				// The middleware runs on cache hits as on misses.
				{"cached_sleep", `{"jsonrpc":"2.0","id":10,"method":"cached_sleep","params":{"ms":0,"key":"k","_meta":{"authorization":"Bearer ` + demoToken + `"}}}`, 0, ""},
				{"cached_sleep again without it", `{"jsonrpc":"2.0","id":11,"method":"cached_sleep","params":{"ms":0,"key":"k"}}`, -32009, ""},
			} {
				a := c.roundTrip(tc.msg)
				if a.code() != tc.code {
					t.Errorf("%s: %s, want code %d", tc.name, a.raw, tc.code)
					continue
				}
				switch tc.code {
				case -32009:
					if !strings.HasPrefix(a.msg.Error.Message, "Unauthorized: ") {
						t.Errorf("%s: message %q", tc.name, a.msg.Error.Message)
					}
				case -32010:
					if string(a.msg.Error.Data) != `{"method":"sum"}` {
						t.Errorf("%s: data %s, want the method", tc.name, a.msg.Error.Data)
					}
				}
				if tc.result != "" && string(a.msg.Result) != tc.result {
					t.Errorf("%s: result %s, want %s", tc.name, a.msg.Result, tc.result)
				}
			}
			// Notifications refused are dropped: without the token, or
			// forbidden; the next answer is the echo's.
			c.send(`{"jsonrpc":"2.0","method":"notify_hello","params":[7]}`)
			c.send(`{"jsonrpc":"2.0","method":"update","params":[1]}`)
			if a := c.roundTrip(withToken(`"last"`, "echo", "Bearer "+demoToken)); a.code() != 0 || string(a.msg.ID) != `"last"` {
				t.Errorf("after the notifications: %s", a.raw)
			}
		})
	}
}

func TestDemoserver_rateLimitOnStreamTransports(t *testing.T) {
	for _, s := range streamServers(t, "-rate", "2") {
		t.Run(s.name, func(t *testing.T) {
			c := s.dial(t)
			// Three calls at once against bursts of 2: one is refused.
			c.send(request("1", "echo", `[1]`))
			c.send(request("2", "echo", `[2]`))
			c.send(request("3", "echo", `[3]`))
			var refused *answer
			for range 3 {
				a := c.answer()
				switch a.code() {
				case 0:
				case -32011:
					if refused != nil {
						t.Fatalf("two refused: %s and %s", refused.raw, a.raw)
					}
					refused = a
				default:
					t.Fatalf("answer %s", a.raw)
				}
			}
			if refused == nil {
				t.Fatal("none refused")
			}
			ms := refused.retryAfterMs(t)
			if ms <= 0 || ms > 500 { // a token every 500 ms
				t.Fatalf("retryAfterMs %d, want 1..500", ms)
			}
			// Another session has a budget of its own.
			if s.name != "stdio" {
				other := s.dial(t)
				if a := other.roundTrip(request("1", "echo", `[1]`)); a.code() != 0 {
					t.Errorf("another session was limited: %s", a.raw)
				}
			}
			// Once the hint has passed, a call goes through.
			time.Sleep(time.Duration(ms) * time.Millisecond)
			if a := c.roundTrip(request("4", "echo", `[4]`)); a.code() != 0 {
				t.Errorf("after retryAfterMs: %s", a.raw)
			}
		})
	}
}

// The rate limit comes before authentication: calls without the token
// count too, so guessing is throttled.
func TestDemoserver_rateLimitComesBeforeTheToken(t *testing.T) {
	for _, s := range streamServers(t, "-rate", "1", "-auth-token", demoToken) {
		t.Run(s.name, func(t *testing.T) {
			c := s.dial(t)
			if a := c.roundTrip(withToken("1", "echo", "Bearer guess1")); a.code() != -32009 {
				t.Fatalf("first guess: %s", a.raw)
			}
			a := c.roundTrip(withToken("2", "echo", "Bearer guess2"))
			if a.code() != -32011 {
				t.Fatalf("second guess: %s", a.raw)
			}
			if ms := a.retryAfterMs(t); ms <= 0 || ms > 1000 {
				t.Errorf("retryAfterMs %d", ms)
			}
		})
	}
}

func TestDemoserver_rejectsABadRate(t *testing.T) {
	for _, v := range []string{"-1", "NaN", "+Inf"} {
		code, _, stderr := runArgs("-rate", v)
		if code != 2 || !strings.Contains(stderr, "demoserver: -rate ") {
			t.Errorf("-rate %s: exit %d, stderr %q", v, code, stderr)
		}
	}
	code, stdout, _ := runArgs("-h")
	for _, want := range []string{"-auth-token TOKEN", "-forbid METHODS", "-rate N"} {
		if code != 0 || !strings.Contains(stdout, want) {
			t.Errorf("the usage does not mention %q", want)
		}
	}
}
