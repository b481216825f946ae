package conn_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net"
	"os"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/pool"
	"github.com/mcpwire/mcpwire/router"
)

// specVector is one case of testdata/jsonrpc/spec-examples.json.
type specVector struct {
	Name     string
	Request  string
	Response *string // nil: no answer is due
}

func specVectors(t *testing.T) []specVector {
	t.Helper()
	data, err := os.ReadFile("../testdata/jsonrpc/spec-examples.json")
	if err != nil {
		t.Fatal(err)
	}
	var vs []specVector
	if err := json.Unmarshal(data, &vs); err != nil {
		t.Fatal(err)
	}
	return vs
}

// specRouter serves the specification's example methods, inline or on the
// pool.
func specRouter(t *testing.T, inline bool) *router.Router {
	t.Helper()
	opts := &router.MethodOptions{Inline: inline}
	type sub struct {
		Minuend    float64 `json:"minuend"`
		Subtrahend float64 `json:"subtrahend"`
	}
	nothing := router.HandlerFunc(func(context.Context, *router.Request) (any, error) { return nil, nil })
	r := router.New()
	for name, h := range map[string]router.Handler{
		"subtract": router.Func(func(_ context.Context, p sub) (float64, error) { return p.Minuend - p.Subtrahend, nil }),
		"sum": router.Func(func(_ context.Context, xs []float64) (float64, error) {
			var s float64
			for _, x := range xs {
				s += x
			}
			return s, nil
		}),
		"get_data":     router.HandlerFunc(func(context.Context, *router.Request) (any, error) { return codec.Raw(`["hello",5]`), nil }),
		"update":       nothing,
		"notify_hello": nothing,
		"notify_sum":   nothing,
	} {
		if err := r.Register(name, h, opts); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

const sentinel = `{"jsonrpc":"2.0","id":"sentinel","method":"get_data"}`

// isSentinel reports the answer to the sentinel request, which tells that
// everything sent before it has been answered.
func isSentinel(msg []byte) bool { return bytes.Contains(msg, []byte(`"id":"sentinel"`)) }

// viaStream answers req over a framed byte stream. Answers may come in any
// order: it reads until it has seen the sentinel's answer and, when one is
// due, req's.
func viaStream(t *testing.T, opts *conn.Options, req string, due bool) []byte {
	t.Helper()
	cli, srv := net.Pipe()
	c := conn.New(srv, opts)
	defer c.Close()
	defer cli.Close()
	go cli.Write([]byte(req + "\n" + sentinel + "\n"))
	br := bufio.NewReader(cli)
	var got []byte
	seen := false
	for {
		cli.SetReadDeadline(time.Now().Add(10 * time.Second))
		line, err := br.ReadBytes('\n')
		if err != nil {
			t.Fatalf("stream: %v", err)
		}
		switch {
		case isSentinel(line):
			seen = true
		case got != nil:
			t.Fatalf("stream: two answers: %s and %s", got, line)
		default:
			got = bytes.TrimSuffix(line, []byte("\n"))
		}
		if seen && (got != nil || !due) {
			return got
		}
	}
}

// viaBody answers req through ServeBody on a session with no stream.
func viaBody(t *testing.T, opts *conn.Options, req string) []byte {
	t.Helper()
	c := conn.NewStream(nil, opts)
	defer c.Close()
	var got []byte
	calls := 0
	if err := c.ServeBody(context.Background(), []byte(req), func(msg []byte) {
		calls++
		got = append([]byte(nil), msg...)
	}); err != nil {
		t.Fatal(err)
	}
	if calls > 1 {
		t.Fatalf("body: reply called %d times", calls)
	}
	return got
}

// viaPipe answers req over an in-memory message pipe, reading as viaStream.
func viaPipe(t *testing.T, opts *conn.Options, req string, due bool) []byte {
	t.Helper()
	cli, srv := conn.Pipe()
	c := conn.NewStream(conn.NewMessageStream(srv, nil), opts)
	defer c.Close()
	defer cli.Close()
	go func() {
		cli.WriteMessage([]byte(req))
		cli.WriteMessage([]byte(sentinel))
	}()
	var got []byte
	seen := false
	for {
		msg, err := cli.ReadMessage()
		if err != nil {
			t.Fatalf("pipe: %v", err)
		}
		switch {
		case isSentinel(msg):
			seen = true
		case got != nil:
			t.Fatalf("pipe: two answers: %s and %s", got, msg)
		default:
			got = append([]byte(nil), msg...)
		}
		if seen && (got != nil || !due) {
			return got
		}
	}
}

func TestSession_answersAlikeOverStreamBodyAndPipe(t *testing.T) {
	p, err := pool.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(context.Background())
	for _, mode := range []struct {
		inline, jsonrpc1 bool
	}{{true, false}, {false, false}, {true, true}, {false, true}} {
		// Every 2.0 example exact whether 1.0 objects are accepted or not.
		inline := mode.inline
		opts := &conn.Options{Router: specRouter(t, inline), Pool: p, JSONRPC1: mode.jsonrpc1}
		for _, v := range specVectors(t) {
			name := v.Name + "/pooled"
			if inline {
				name = v.Name + "/inline"
			}
			if mode.jsonrpc1 {
				name += "/jsonrpc1"
			}
			t.Run(name, func(t *testing.T) {
				due := v.Response != nil
				stream := viaStream(t, opts, v.Request, due)
				body := viaBody(t, opts, v.Request)
				pipe := viaPipe(t, opts, v.Request, due)
				if !bytes.Equal(stream, body) || !bytes.Equal(stream, pipe) {
					t.Fatalf("answers differ:\nstream %s\nbody   %s\npipe   %s", stream, body, pipe)
				}
				if !due {
					if stream != nil {
						t.Fatalf("answer %s, want none", stream)
					}
					return
				}
				if !sameJSON(t, stream, []byte(*v.Response)) {
					t.Fatalf("answer %s, want %s", stream, *v.Response)
				}
			})
		}
	}
}

// sameJSON compares two JSON texts by value, ignoring the message texts of
// errors (the specification's are examples).
func sameJSON(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	dropMessages(x)
	dropMessages(y)
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}

func dropMessages(v any) {
	switch v := v.(type) {
	case []any:
		for _, e := range v {
			dropMessages(e)
		}
	case map[string]any:
		if e, ok := v["error"].(map[string]any); ok {
			delete(e, "message")
			delete(e, "data")
		}
	}
}
