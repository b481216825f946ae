package demoserver

import (
	"bufio"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/cache"
	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/mcp"
)

// TestSleep_paramsAreChecked: sleep and cached_sleep answer -32602 naming
// the member for an ms or a key that is missing, null, of another type or
// (ms) outside 0..10000, and sleep the ms they are given otherwise, by
// name or by position.
func TestSleep_paramsAreChecked(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "0"}, nil)
	var runs atomic.Int64
	if err := registerLoadMethods(srv, cache.New(nil), &runs); err != nil {
		t.Fatal(err)
	}
	call := bodyCaller(t, srv)
	for _, tc := range []struct{ method, params, field string }{
		{"sleep", "", "ms"},
		{"sleep", `{}`, "ms"},
		{"sleep", `{"ms":null}`, "ms"},
		{"sleep", `{"ms":-1}`, "ms"},
		{"sleep", `{"ms":10001}`, "ms"},
		{"sleep", `{"ms":99999999999999999999}`, "ms"},
		{"sleep", `{"ms":1.5}`, "ms"},
		{"sleep", `{"ms":"10"}`, "ms"},
		{"sleep", `["x"]`, "ms"},
		{"sleep", `{"MS":10}`, "ms"},
		{"cached_sleep", `{"key":"k"}`, "ms"},
		{"cached_sleep", `{"ms":10001,"key":"k"}`, "ms"},
		{"cached_sleep", `{"ms":1}`, "key"},
		{"cached_sleep", `{"ms":1,"key":null}`, "key"},
		{"cached_sleep", `{"ms":1,"key":5}`, "key"},
	} {
		res, e := call(tc.method, tc.params)
		if e == nil || e.Code != codec.CodeInvalidParams || e.Data.(map[string]any)["field"] != tc.field {
			t.Errorf("%s %s = %s, %v; want -32602 naming %s", tc.method, tc.params, res, e, tc.field)
		}
	}
	if runs.Load() != 0 {
		t.Errorf("cached_sleep counted %d runs of calls refused for their params", runs.Load())
	}
	start := time.Now()
	if res, e := call("sleep", `{"ms":30}`); e != nil || string(res) != "30" {
		t.Errorf("sleep 30 = %s, %v", res, e)
	}
	if d := time.Since(start); d < 30*time.Millisecond {
		t.Errorf("sleep 30 returned after %v", d)
	}
	if res, e := call("sleep", `[0]`); e != nil || string(res) != "0" {
		t.Errorf("sleep [0] = %s, %v", res, e)
	}
	if res, e := call("cached_sleep", `{"ms":0,"key":""}`); e != nil || string(res) != `{"ms":0,"key":"","runs":1}` {
		t.Errorf("cached_sleep = %s, %v", res, e)
	}
	if res, e := call("cached_sleep", `[0,""]`); e != nil || string(res) != `{"ms":0,"key":"","runs":2}` {
		t.Errorf("cached_sleep by position = %s, %v (params by position are a key of their own)", res, e)
	}
}

// TestDemoserver_inlineFalsePutsThePlainMethodsOnThePool: with
// -max-inflight 1 -overload reject, a sleep holds the connection's one
// slot; an echo behind it is answered at once when inline (it takes no
// slot), and refused -32000 under -inline=false, where it needs a slot
// like any pooled handler. The specification's examples all pass on the
// pool too.
func TestDemoserver_inlineFalsePutsThePlainMethodsOnThePool(t *testing.T) {
	bin := build(t)
	for _, tc := range []struct {
		flag string
		code int
	}{{"-inline=true", 0}, {"-inline=false", -32000}} {
		t.Run(tc.flag, func(t *testing.T) {
			_, addr, _ := startListening(t, bin, "-listen", "tcp://127.0.0.1:0", "-max-inflight", "1", "-overload", "reject", tc.flag)
			p := dialPeer(t, addr)
			slept, echoed := p.expect("1"), p.expect("2")
			p.send(request("1", "sleep", `{"ms":500}`), request("2", "echo", `[1]`))
			if a := wait(t, echoed, 10*time.Second); a.code() != tc.code {
				t.Errorf("echo behind a sleep holding the only slot: %s, want code %d", a.raw, tc.code)
			}
			if a := wait(t, slept, 10*time.Second); a.code() != 0 {
				t.Errorf("sleep: %s", a.raw)
			}
		})
	}
	t.Run("vectors", func(t *testing.T) {
		_, addr, _ := startListening(t, bin, "-listen", "tcp://127.0.0.1:0", "-inline=false")
		nc, err := net.DialTimeout("tcp", strings.TrimPrefix(addr, "tcp://"), 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		defer nc.Close()
		nc.SetDeadline(time.Now().Add(60 * time.Second))
		checkVectors(t, &client{t: t, w: nc, br: bufio.NewReader(nc), framing: codec.Newline})
	})
}
