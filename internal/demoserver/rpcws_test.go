package demoserver

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/mcpwire/mcpwire/codec"
)

// stdioAnswers runs every vector over stdio, each followed by the
// sentinel, and returns each vector's answer as the server wrote it
// (without its newline), or nil where none came.
func stdioAnswers(t *testing.T, bin string, vs []vector) [][]byte {
	t.Helper()
	_, c, stdin, _ := startStdio(t, bin, codec.Newline)
	defer stdin.Close()
	out := make([][]byte, len(vs))
	for i, v := range vs {
		c.send(v.Request)
		c.send(sentinel)
		for {
			line := bytes.TrimSuffix(c.recv(), []byte("\n"))
			if bytes.Contains(line, []byte(`"id":"sentinel"`)) {
				break
			}
			out[i] = line
		}
	}
	return out
}

// startHTTP starts the built demo server on HTTP loopback with args and
// returns its base URL.
func startHTTP(t *testing.T, args ...string) string {
	t.Helper()
	_, addr, logs := startListening(t, build(t), append([]string{"-listen", "http://127.0.0.1:0"}, args...)...)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("demoserver's stderr:\n%s", logs)
		}
	})
	return addr
}

// TestDemoserver_specVectorsOverRPCAndWS: every vector over /rpc (one POST
// each, on net/http and on -fast-rpc's fasthttp) and /ws (one connection,
// one message each) is answered byte for byte as over stdio, and as the
// specification says.
func TestDemoserver_specVectorsOverRPCAndWS(t *testing.T) {
	bin := build(t)
	vs := loadVectors(t)
	want := stdioAnswers(t, bin, vs)
	for i, v := range vs {
		if (want[i] == nil) != (v.Response == nil) {
			t.Fatalf("%s over stdio: answer %q, the specification's %v", v.Name, want[i], v.Response)
		}
		if v.Response != nil && !sameJSON(t, want[i], []byte(*v.Response)) {
			t.Fatalf("%s over stdio: %s, want %s", v.Name, want[i], *v.Response)
		}
	}
	for _, mode := range [][]string{nil, {"-inline=false"}} {
		_, found, logs := startLogging(t, bin, []string{"addr", "fastrpc"}, append([]string{"-listen", "http://127.0.0.1:0", "-fast-rpc", "127.0.0.1:0"}, mode...)...)
		t.Cleanup(func() {
			if t.Failed() {
				t.Logf("demoserver's stderr:\n%s", logs)
			}
		})
		base := found["addr"]
		for name, url := range map[string]string{"rpc": base + "/rpc", "fastrpc": found["fastrpc"]} {
			t.Run(name+strings.Join(mode, ""), func(t *testing.T) { postVectors(t, url, vs, want) })
		}
		t.Run("ws"+strings.Join(mode, ""), func(t *testing.T) {
			ws := dialDemoWS(t, base)
			for i, v := range vs {
				got := wsExchange(t, ws, v.Request, want[i] != nil)
				if !bytes.Equal(got, want[i]) {
					t.Errorf("%s: %s\n want %s", v.Name, got, want[i])
				}
			}
		})
	}
}

// postVectors posts every vector to url, one POST each, and checks each
// answer and its status against stdio's answer want[i].
func postVectors(t *testing.T, url string, vs []vector, want [][]byte) {
	for i, v := range vs {
		res, err := http.Post(url, "application/json", strings.NewReader(v.Request))
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		status := http.StatusOK
		if want[i] == nil {
			status = http.StatusNoContent
		}
		if res.StatusCode != status || !bytes.Equal(body, want[i]) {
			t.Errorf("%s: %d %s\n want %d %s", v.Name, res.StatusCode, body, status, want[i])
		}
	}
}

func dialDemoWS(t *testing.T, base string) *websocket.Conn {
	t.Helper()
	ws, _, err := websocket.Dial(context.Background(), "ws"+strings.TrimPrefix(base, "http")+"/ws", nil)
	if err != nil {
		t.Fatal(err)
	}
	ws.SetReadLimit(-1)
	t.Cleanup(func() { ws.Close(websocket.StatusNormalClosure, "") })
	return ws
}

// wsExchange sends msg then the sentinel, and returns the answer to msg
// (nil when the sentinel's came alone), within 5 seconds. The two answers
// may come in either order (a pooled handler may finish later).
func wsExchange(t *testing.T, ws *websocket.Conn, msg string, answered bool) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, m := range []string{msg, sentinel} {
		if err := ws.Write(ctx, websocket.MessageText, []byte(m)); err != nil {
			t.Fatal(err)
		}
	}
	n := 1
	if answered {
		n = 2
	}
	var got []byte
	for range n {
		_, b, err := ws.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(b, []byte(`"id":"sentinel"`)) {
			got = b
		}
	}
	return got
}

// TestDemoserver_mcpOverRPCAndWS: the sessions of /rpc and /ws are the
// stream transports' sessions, MCP included.
func TestDemoserver_mcpOverRPCAndWS(t *testing.T) {
	base := startHTTP(t)
	const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	ws := dialDemoWS(t, base)
	if got := wsExchange(t, ws, initialize, true); !bytes.Contains(got, []byte(`"protocolVersion":"2025-06-18"`)) {
		t.Fatalf("initialize over /ws: %s", got)
	}
	wsExchange(t, ws, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, false)
	got := wsExchange(t, ws, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"message":"over ws"}}}`, true)
	if !bytes.Contains(got, []byte(`"text":"over ws"`)) {
		t.Fatalf("tools/call over /ws: %s", got)
	}
	// A POST is a session of its own: initialize answers, and the next
	// POST starts afresh.
	res, err := http.Post(base+"/rpc", "application/json", strings.NewReader(initialize))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK || !bytes.Contains(body, []byte(`"protocolVersion":"2025-06-18"`)) {
		t.Fatalf("initialize over /rpc: %d %s", res.StatusCode, body)
	}
	res, err = http.Post(base+"/rpc", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(res.Body)
	res.Body.Close()
	if !bytes.Contains(body, []byte(`"error"`)) {
		t.Fatalf("tools/list in a new session before initialize: %s", body)
	}
}
