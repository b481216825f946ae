package transport_test

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/transport"
)

// v1Wire is a JSON-RPC 1.0 message and the answer it gets on the wire:
// exactly want, or (want ending in a comma) an answer beginning with want;
// "" for none.
var v1Wire = []struct{ name, req, want string }{
	{"request", `{"method":"echo","params":[1,"a"],"id":1}`,
		`{"id":1,"result":[1,"a"],"error":null}`},
	{"requestVersion1", `{"jsonrpc":"1.0","method":"echo","params":[],"id":"x"}`,
		`{"id":"x","result":[],"error":null}`},
	{"idByteForByte", `{"method":"echo","params":[2],"id":1.50}`,
		`{"id":1.50,"result":[2],"error":null}`},
	{"notification", `{"method":"note","params":["n"],"id":null}`, ``},
	{"unknownMethod", `{"method":"nope","params":[],"id":2}`,
		`{"id":2,"result":null,"error":{"code":-32601,"message":"Method not found","data":{"method":"nope"}}}`},
	{"badParams", `{"method":"fail","params":["x"],"id":3}`,
		`{"id":3,"result":null,"error":{"code":-32602,`},
	{"handlerError", `{"method":"fail","params":[-32010],"id":7}`,
		`{"id":7,"result":null,"error":{"code":-32010,"message":"Forbidden"}}`},
	{"paramsObject", `{"method":"echo","params":{"a":1},"id":4}`,
		`{"id":4,"result":null,"error":{"code":-32600,"message":"Invalid Request: JSON-RPC 1.0 params must be an array"}}`},
	{"classHint", `{"method":"echo","params":[{"__jsonclass__":["Date",[]]}],"id":5}`,
		`{"id":5,"result":null,"error":{"code":-32600,"message":"Invalid Request: JSON-RPC 1.0 class hints (__jsonclass__) are not supported"}}`},
	{"noID", `{"method":"echo","params":[]}`,
		`{"id":null,"result":null,"error":{"code":-32600,"message":"Invalid Request: a JSON-RPC 1.0 request needs an id (null for a notification)"}}`},
	{"twoPointZeroBeside", `{"jsonrpc":"2.0","method":"echo","params":[6],"id":6}`,
		`{"jsonrpc":"2.0","id":6,"result":[6]}`},
}

// matchV1 reports whether got is the answer want describes.
func matchV1(got, want string) bool {
	if strings.HasSuffix(want, ",") {
		return strings.HasPrefix(got, want) && strings.HasSuffix(got, "}")
	}
	return got == want
}

const v1Sentinel = `{"method":"echo","params":["sentinel"],"id":"s"}`

// roundTripLines writes req and a sentinel as lines to w and reads answer
// lines from br until the sentinel's answer and, when one is due, req's.
func roundTripLines(t *testing.T, w io.Writer, br *bufio.Reader, deadline func(time.Time), req string, due bool) string {
	t.Helper()
	if _, err := io.WriteString(w, req+"\n"+v1Sentinel+"\n"); err != nil {
		t.Fatal(err)
	}
	var got string
	seen := false
	for !seen || due && got == "" {
		deadline(time.Now().Add(10 * time.Second))
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("reading: %v", err)
		}
		line = strings.TrimSuffix(line, "\n")
		switch {
		case strings.Contains(line, `"id":"s"`):
			if line != `{"id":"s","result":["sentinel"],"error":null}` {
				t.Fatalf("sentinel answered %s", line)
			}
			seen = true
		case got != "":
			t.Fatalf("two answers: %s and %s", got, line)
		default:
			got = line
		}
	}
	return got
}

func checkV1Wire(t *testing.T, name string, notes <-chan string, rt func(req string, due bool) string) {
	for _, c := range v1Wire {
		t.Run(name+"/"+c.name, func(t *testing.T) {
			got := rt(c.req, c.want != "")
			if !matchV1(got, c.want) {
				t.Fatalf("answer %s\nwant %s", got, c.want)
			}
			if c.name == "notification" {
				select {
				case p := <-notes:
					if p != `["n"]` {
						t.Fatalf("note got %s", p)
					}
				case <-time.After(10 * time.Second):
					t.Fatal("the notification's handler did not run")
				}
			}
		})
	}
}

func TestJSONRPC1_overStdioTCPAndHTTPPost(t *testing.T) {
	notes := make(chan string, 1)
	opts := &conn.Options{Router: rpcRouter(notes), JSONRPC1: true}

	t.Run("stdio", func(t *testing.T) {
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		srv := transport.NewServer(opts)
		sc, err := srv.ServeConn(&transport.Stdio{R: inR, W: outW})
		if err != nil {
			t.Fatal(err)
		}
		defer func() { inW.Close(); <-sc.Done(); srv.Close(); outR.Close() }()
		br := bufio.NewReader(outR)
		checkV1Wire(t, "stdio", notes, func(req string, due bool) string {
			return roundTripLines(t, inW, br, func(time.Time) {}, req, due)
		})
	})

	t.Run("tcp", func(t *testing.T) {
		nc := dialServer(t, opts)
		br := bufio.NewReader(nc)
		checkV1Wire(t, "tcp", notes, func(req string, due bool) string {
			return roundTripLines(t, nc, br, func(d time.Time) { nc.SetReadDeadline(d) }, req, due)
		})
	})

	forEachHTTPHandler(t, func(t *testing.T, serve serveRPC) {
		url := serve(t, opts)
		checkV1Wire(t, "post", notes, func(req string, due bool) string {
			res, body := post(t, url, "application/json", req)
			status := http.StatusOK
			if strings.Contains(req, "-32010") {
				status = http.StatusForbidden // as for a 2.0 answer with that code
			}
			if due && res.StatusCode != status || !due && (res.StatusCode != http.StatusNoContent || body != "") {
				t.Fatalf("status %d, body %q", res.StatusCode, body)
			}
			return strings.TrimSuffix(body, "\n")
		})
	})
}

// dialServer serves opts on a TCP listener on loopback until the test
// ends, and returns a raw connection to it.
func dialServer(t *testing.T, opts *conn.Options) net.Conn {
	t.Helper()
	ln, err := transport.Listen(context.Background(), "tcp://127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := transport.NewServer(opts)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	nc, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		nc.Close()
		srv.Shutdown(context.Background())
		<-served
	})
	return nc
}

// The option is per listener: the same router behind a listener without
// it refuses a 1.0 request as 2.0 requires.
func TestJSONRPC1_isPerListener(t *testing.T) {
	r := rpcRouter(nil)
	on := dialServer(t, &conn.Options{Router: r, JSONRPC1: true})
	off := dialServer(t, &conn.Options{Router: r})
	req := `{"method":"echo","params":[1],"id":1}` + "\n"
	for _, tc := range []struct {
		nc   net.Conn
		want string
	}{
		{on, `{"id":1,"result":[1],"error":null}`},
		{off, `{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"Invalid Request: jsonrpc must be \"2.0\""}}`},
	} {
		if _, err := io.WriteString(tc.nc, req); err != nil {
			t.Fatal(err)
		}
		tc.nc.SetReadDeadline(time.Now().Add(10 * time.Second))
		got, err := bufio.NewReader(tc.nc).ReadString('\n')
		if err != nil || strings.TrimSuffix(got, "\n") != tc.want {
			t.Errorf("answer %q, %v; want %s", got, err, tc.want)
		}
	}
}

// A client speaking 1.0 over HTTP POST gets each answer, the ones a
// status other than 200 carries (403 for -32010) included, and the
// error its server sends for a request refused before a session.
func TestJSONRPC1_clientOverHTTPPost(t *testing.T) {
	forEachHTTPHandler(t, func(t *testing.T, serve serveRPC) {
		url := serve(t, &conn.Options{Router: rpcRouter(nil), JSONRPC1: true})
		c := conn.NewStream(transport.NewHTTPStream(url, nil), &conn.Options{SendJSONRPC1: true})
		defer c.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		var got []int
		if err := c.Call(ctx, "echo", []int{4, 2}, &got); err != nil || len(got) != 2 || got[0] != 4 {
			t.Fatalf("echo = %v, %v", got, err)
		}
		var e *codec.Error
		if err := c.Call(ctx, "fail", []int{-32010}, nil); !errors.As(err, &e) || e.Code != codec.CodeForbidden {
			t.Fatalf("fail: %v, want -32010", err)
		}
		if err := c.Notify(ctx, "note", []string{"x"}); err != nil {
			t.Fatal(err)
		}
	})
}
