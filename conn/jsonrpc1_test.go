package conn_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/cache"
	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/pool"
	"github.com/mcpwire/mcpwire/router"
)

// v1Router serves the methods of the JSON-RPC 1.0 tests, inline or on the
// pool, behind a middleware that refuses "guarded"; "cached" is behind a
// response cache and counts its runs.
func v1Router(t *testing.T, inline bool, runs *atomic.Int32) *router.Router {
	t.Helper()
	r := router.New()
	r.Use(func(next router.Handler) router.Handler {
		return router.HandlerFunc(func(ctx context.Context, req *router.Request) (any, error) {
			if req.Method == "guarded" {
				return nil, codec.NewError(codec.CodeForbidden, "")
			}
			return next.Handle(ctx, req)
		})
	})
	opts := &router.MethodOptions{Inline: inline}
	for name, h := range map[string]router.Handler{
		"subtract": router.Func(func(_ context.Context, p []float64) (float64, error) {
			if len(p) != 2 {
				return 0, codec.ErrInvalidParams
			}
			return p[0] - p[1], nil
		}),
		"fail": router.HandlerFunc(func(context.Context, *router.Request) (any, error) {
			return nil, &codec.Error{Code: codec.CodeTooManyRequests, Message: "slow down", Data: codec.Raw(`{"retryAfterMs":5}`)}
		}),
		"boom":    router.HandlerFunc(func(context.Context, *router.Request) (any, error) { panic("boom") }),
		"guarded": router.HandlerFunc(func(context.Context, *router.Request) (any, error) { return 1, nil }),
		"note":    router.HandlerFunc(func(context.Context, *router.Request) (any, error) { return nil, nil }),
	} {
		if err := r.Register(name, h, opts); err != nil {
			t.Fatal(err)
		}
	}
	cached := router.HandlerFunc(func(_ context.Context, req *router.Request) (any, error) {
		runs.Add(1)
		return codec.Raw(`{"n":` + string(req.Params[1:len(req.Params)-1]) + `}`), nil
	})
	if err := r.Register("cached", cached, &router.MethodOptions{Cache: cache.New(nil).Method(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	return r
}

// v1Case is a JSON-RPC 1.0 message and its answer: none (due false), or
// one whose id is id and whose result is result (code 0) or whose error
// has code.
type v1Case struct {
	name, req  string
	due        bool
	id, result string
	code       codec.Code
}

var v1Cases = []v1Case{
	{"request", `{"method":"subtract","params":[42,23],"id":1}`, true, `1`, `19`, 0},
	{"requestVersion1", `{"jsonrpc":"1.0","method":"subtract","params":[23,42],"id":"b"}`, true, `"b"`, `-19`, 0},
	{"idDecimal", `{"method":"subtract","params":[1,1],"id":1.50}`, true, `1.50`, `0`, 0},
	{"idEscaped", `{"params":[3,1],"id":"\u00e9","method":"subtract"}`, true, `"\u00e9"`, `2`, 0},
	{"notification", `{"method":"note","params":[1],"id":null}`, false, ``, ``, 0},
	{"notificationUnknown", `{"method":"nope","params":[],"id":null}`, false, ``, ``, 0},
	{"unknownMethod", `{"method":"nope","params":[],"id":12345678901234567890}`, true, `12345678901234567890`, ``, codec.CodeMethodNotFound},
	{"badParamsForHandler", `{"method":"subtract","params":["x"],"id":2}`, true, `2`, ``, codec.CodeInvalidParams},
	{"badParamsCount", `{"method":"subtract","params":[1],"id":3}`, true, `3`, ``, codec.CodeInvalidParams},
	{"paramsObject", `{"method":"subtract","params":{"a":1},"id":4}`, true, `4`, ``, codec.CodeInvalidRequest},
	{"paramsObjectNotification", `{"method":"note","params":{"a":1},"id":null}`, true, `null`, ``, codec.CodeInvalidRequest},
	{"classHint", `{"method":"subtract","params":[{"__jsonclass__":["Date",[]]},1],"id":5}`, true, `5`, ``, codec.CodeInvalidRequest},
	{"noID", `{"method":"subtract","params":[1,2]}`, true, `null`, ``, codec.CodeInvalidRequest},
	{"handlerError", `{"method":"fail","params":[],"id":6}`, true, `6`, ``, codec.CodeTooManyRequests},
	{"panic", `{"method":"boom","params":[],"id":7}`, true, `7`, ``, codec.CodeInternalError},
	{"middleware", `{"method":"guarded","params":[],"id":8}`, true, `8`, ``, codec.CodeForbidden},
	{"cached", `{"method":"cached","params":[9],"id":9}`, true, `9`, `{"n":9}`, 0},
}

// checkV1Answer checks that got is the 1.0 answer c wants: exactly the
// members id, result and error, the id byte for byte, the member not set
// null.
func checkV1Answer(t *testing.T, c v1Case, got []byte) {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(got, &m); err != nil {
		t.Fatalf("answer %s: %v", got, err)
	}
	if len(m) != 3 || m["id"] == nil || m["result"] == nil || m["error"] == nil {
		t.Fatalf("answer %s: want exactly id, result and error", got)
	}
	if !bytes.HasPrefix(got, []byte(`{"id":`+c.id+`,`)) {
		t.Fatalf("answer %s: id not %s byte for byte", got, c.id)
	}
	if c.code == 0 {
		if string(m["result"]) != c.result || string(m["error"]) != "null" {
			t.Fatalf("answer %s: want result %s, error null", got, c.result)
		}
		return
	}
	var e struct {
		Code    codec.Code
		Message string
	}
	if err := json.Unmarshal(m["error"], &e); err != nil || string(m["result"]) != "null" || e.Code != c.code || e.Message == "" {
		t.Fatalf("answer %s: want result null, error code %d", got, c.code)
	}
}

func TestSession_jsonrpc1AnsweredInItsOwnShape(t *testing.T) {
	p, err := pool.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(context.Background())
	for _, inline := range []bool{true, false} {
		var runs atomic.Int32
		opts := &conn.Options{Router: v1Router(t, inline, &runs), Pool: p, JSONRPC1: true}
		for _, c := range v1Cases {
			name := c.name + "/pooled"
			if inline {
				name = c.name + "/inline"
			}
			t.Run(name, func(t *testing.T) {
				stream := viaStream(t, opts, c.req, c.due)
				body := viaBody(t, opts, c.req)
				pipe := viaPipe(t, opts, c.req, c.due)
				if !sameValue(stream, body) || !sameValue(stream, pipe) { // maps in error data come in any order
					t.Fatalf("answers differ:\nstream %s\nbody   %s\npipe   %s", stream, body, pipe)
				}
				if !c.due {
					if stream != nil {
						t.Fatalf("answer %s, want none", stream)
					}
					return
				}
				checkV1Answer(t, c, stream)
			})
		}
		if n := runs.Load(); n != 1 {
			t.Errorf("cached method ran %d times for 3 identical calls, want 1", n)
		}
	}
}

// sameValue reports whether a and b are the same JSON value, or both nil.
func sameValue(a, b []byte) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && reflect.DeepEqual(x, y)
}

// TestSession_jsonrpc1Off: without the option a 1.0 object is what 2.0
// says it is, an invalid request, answered in 2.0.
func TestSession_jsonrpc1Off(t *testing.T) {
	var runs atomic.Int32
	opts := &conn.Options{Router: v1Router(t, true, &runs)}
	got := viaStream(t, opts, `{"method":"subtract","params":[42,23],"id":1}`, true)
	want := `{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"Invalid Request: jsonrpc must be \"2.0\""}}`
	if string(got) != want {
		t.Fatalf("answer %s, want %s", got, want)
	}
}

// TestSession_jsonrpc1BatchesStayTwoPointZero: a 1.0 object in a batch is
// an invalid 2.0 element, answered in 2.0 in the batch's array.
func TestSession_jsonrpc1BatchesStayTwoPointZero(t *testing.T) {
	var runs atomic.Int32
	opts := &conn.Options{Router: v1Router(t, true, &runs), JSONRPC1: true}
	got := viaBody(t, opts, `[{"method":"subtract","params":[42,23],"id":1},{"jsonrpc":"2.0","method":"subtract","params":[2,1],"id":2}]`)
	want := `[{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"Invalid Request: jsonrpc must be \"2.0\""}},{"jsonrpc":"2.0","id":2,"result":1}]`
	if string(got) != want {
		t.Fatalf("answer %s, want %s", got, want)
	}
}

// TestSession_jsonrpc1AdmissionRefusesInItsShape: a 1.0 request refused
// by a full Admission gets the -32000 answer, with its retry hint, in 1.0.
func TestSession_jsonrpc1AdmissionRefusesInItsShape(t *testing.T) {
	full := pool.NewLimiter(1)
	if !full.TryAcquire() {
		t.Fatal("limiter")
	}
	var runs atomic.Int32
	opts := &conn.Options{Router: v1Router(t, false, &runs), JSONRPC1: true, Admission: full, Overload: pool.Reject}
	got := viaStream(t, opts, `{"method":"subtract","params":[42,23],"id":"x"}`, true)
	c := v1Case{id: `"x"`, code: codec.CodeOverloaded}
	checkV1Answer(t, c, got)
	if !bytes.Contains(got, []byte(`"retryAfterMs"`)) {
		t.Fatalf("answer %s: no retry hint", got)
	}
}

// TestConn_jsonrpc1InterleavedOnOnePipelinedStream sends 1.0 and 2.0
// requests and notifications mixed in one write, served inline and on the
// pool, and checks each request is answered once, in its own version.
func TestConn_jsonrpc1InterleavedOnOnePipelinedStream(t *testing.T) {
	var runs atomic.Int32
	r := v1Router(t, false, &runs)
	if err := r.Register("add", router.Func(func(_ context.Context, p []int) (int, error) { return p[0] + p[1], nil }),
		&router.MethodOptions{Inline: true}); err != nil {
		t.Fatal(err)
	}
	cli, srv := net.Pipe()
	c := conn.New(srv, &conn.Options{Router: r, JSONRPC1: true})
	defer c.Close()
	defer cli.Close()
	const n = 200
	var in bytes.Buffer
	for i := range n {
		method := "subtract" // pooled
		if i%3 == 0 {
			method = "add" // inline
		}
		switch i % 4 {
		case 0:
			fmt.Fprintf(&in, `{"method":%q,"params":[%d,1],"id":"v1-%d"}`+"\n", method, i, i)
		case 1:
			fmt.Fprintf(&in, `{"jsonrpc":"2.0","method":%q,"params":[%d,1],"id":"v2-%d"}`+"\n", method, i, i)
		case 2:
			fmt.Fprintf(&in, `{"jsonrpc":"1.0","method":%q,"params":[%d,1],"id":"v1-%d"}`+"\n", method, i, i)
			fmt.Fprintf(&in, `{"method":"note","params":[],"id":null}`+"\n")
		case 3:
			fmt.Fprintf(&in, `{"jsonrpc":"2.0","method":%q,"params":[%d,1],"id":"v2-%d"}`+"\n", method, i, i)
			fmt.Fprintf(&in, `{"jsonrpc":"2.0","method":"note","params":[]}`+"\n")
		}
	}
	go cli.Write(in.Bytes())
	br := bufio.NewReader(cli)
	seen := map[string]bool{}
	for range n {
		cli.SetReadDeadline(time.Now().Add(10 * time.Second))
		line, err := br.ReadBytes('\n')
		if err != nil {
			t.Fatalf("after %d answers: %v", len(seen), err)
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatalf("answer %s: %v", line, err)
		}
		var id string
		if err := json.Unmarshal(m["id"], &id); err != nil || seen[id] {
			t.Fatalf("answer %s: id unreadable or seen before", line)
		}
		seen[id] = true
		var i, sign int
		fmt.Sscanf(id[3:], "%d", &i)
		sign = 1
		if i%3 != 0 {
			sign = -1 // subtract
		}
		want := fmt.Sprint(i + sign)
		if strings.HasPrefix(id, "v1-") {
			if len(m) != 3 || m["jsonrpc"] != nil || string(m["result"]) != want || string(m["error"]) != "null" {
				t.Fatalf("1.0 answer %s: want result %s in the 1.0 shape", line, want)
			}
		} else if len(m) != 3 || string(m["jsonrpc"]) != `"2.0"` || string(m["result"]) != want {
			t.Fatalf("2.0 answer %s: want result %s in the 2.0 shape", line, want)
		}
	}
	if len(seen) != n {
		t.Fatalf("%d answers, want %d", len(seen), n)
	}
}

// v1Metrics is a metricsLog that also counts 1.0 messages by method.
type v1Metrics struct {
	*metricsLog
	mu sync.Mutex
	v1 map[string]int
}

func (m *v1Metrics) JSONRPC1(method string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.v1[method]++
}

func TestSession_jsonrpc1Metrics(t *testing.T) {
	var runs atomic.Int32
	m := &v1Metrics{metricsLog: newMetricsLog(), v1: map[string]int{}}
	opts := &conn.Options{Router: v1Router(t, true, &runs), JSONRPC1: true, Metrics: m}
	for _, req := range []string{
		`{"method":"subtract","params":[42,23],"id":1}`,
		`{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":2}`,
		`{"method":"nope","params":[],"id":3}`,
		`{"method":"subtract","params":{},"id":4}`,
	} {
		viaBody(t, opts, req)
	}
	m.want(t, map[string]int{"subtract 0": 2}, map[string]int{"(unknown) -32601": 1, "(invalid) -32600": 1})
	m.mu.Lock()
	defer m.mu.Unlock()
	if want := map[string]int{"subtract": 1, "(unknown)": 1, "(invalid)": 1}; fmt.Sprint(m.v1) != fmt.Sprint(want) {
		t.Errorf("1.0 messages %v, want %v", m.v1, want)
	}
}

// fakeV1Server answers each 1.0 request read from srv with a 1.0
// response made by answer, and checks it is a 1.0 object.
func fakeV1Server(t *testing.T, srv net.Conn, answer func(id, method, params string) string) {
	br := bufio.NewReader(srv)
	for {
		line, err := br.ReadBytes('\n')
		if err != nil {
			return
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(line, &m); err != nil || m["jsonrpc"] != nil || len(m) != 3 || m["params"][0] != '[' {
			t.Errorf("request %s: not a JSON-RPC 1.0 request", line)
			return
		}
		if string(m["id"]) == "null" {
			continue // a notification
		}
		var method string
		json.Unmarshal(m["method"], &method)
		if _, err := srv.Write([]byte(answer(string(m["id"]), method, string(m["params"])) + "\n")); err != nil {
			return
		}
	}
}

func TestConn_sendJSONRPC1CallsAOnePointZeroPeer(t *testing.T) {
	cli, srv := net.Pipe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		fakeV1Server(t, srv, func(id, method, params string) string {
			if method == "fail" {
				return `{"result":null,"error":{"code":-8,"message":"Block height out of range"},"id":` + id + `}`
			}
			return `{"result":` + params + `,"error":null,"id":` + id + `}`
		})
	}()
	c := conn.New(cli, &conn.Options{SendJSONRPC1: true})
	defer func() { c.Close(); srv.Close(); <-done }()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var got []int
	if err := c.Call(ctx, "echo", []int{1, 2}, &got); err != nil || fmt.Sprint(got) != "[1 2]" {
		t.Fatalf("Call = %v, %v", got, err)
	}
	raw, err := c.CallRaw(ctx, "echo", nil)
	if err != nil || string(raw) != "[]" {
		t.Fatalf("CallRaw without params = %s, %v; want []", raw, err)
	}
	var e *codec.Error
	if _, err := c.CallRaw(ctx, "fail", []any{1}); !errors.As(err, &e) || e.Code != -8 || e.Message != "Block height out of range" {
		t.Fatalf("CallRaw(fail) = %v, want the peer's error -8", err)
	}
	if _, err := c.CallRaw(ctx, "echo", map[string]int{"a": 1}); err != conn.ErrParamsNotArray {
		t.Fatalf("object params: %v, want ErrParamsNotArray", err)
	}
	if err := c.CallBatch(ctx, []conn.BatchCall{{Method: "echo"}}); err != conn.ErrBatchJSONRPC1 {
		t.Fatalf("CallBatch: %v, want ErrBatchJSONRPC1", err)
	}
	if err := c.Notify(ctx, "tick", []int{1}); err != nil {
		t.Fatal(err)
	}
	// Concurrent calls, answered by id.
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() {
			var got []int
			if err := c.Call(ctx, "echo", []int{i}, &got); err != nil || len(got) != 1 || got[0] != i {
				t.Errorf("call %d = %v, %v", i, got, err)
			}
		})
	}
	wg.Wait()
}
