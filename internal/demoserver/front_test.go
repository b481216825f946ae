package demoserver

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/valyala/fasthttp"
)

// TestReplay: a request handed over is rewritten as the client sent it,
// but for its body's framing, which becomes a Content-Length; one fasthttp
// would close the connection after is marked Connection: close.
func TestReplay(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"get",
			"GET /mcp?x=1 HTTP/1.1\r\nHost: h\r\nAccept: text/event-stream\r\n\r\n",
			"GET /mcp?x=1 HTTP/1.1\r\nHost: h\r\nAccept: text/event-stream\r\n\r\n"},
		{"post",
			"POST /mcp HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\nContent-Type: application/json\r\n\r\n{}",
			"POST /mcp HTTP/1.1\r\nHost: h\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"},
		{"chunked, expect",
			"POST /sse HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\nExpect: 100-continue\r\n\r\n2\r\n{}\r\n0\r\n\r\n",
			"POST /sse HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\n\r\n{}"},
		{"empty post",
			"POST /mcp HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\r\n",
			"POST /mcp HTTP/1.1\r\nHost: h\r\n\r\n"},
		{"content-length and chunked",
			"POST /mcp HTTP/1.1\r\nHost: h\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n",
			"POST /mcp HTTP/1.1\r\nConnection: close\r\nHost: h\r\nContent-Length: 2\r\n\r\n{}"},
		{"http/1.0",
			"GET /ws HTTP/1.0\r\nHost: h\r\n\r\n",
			"GET /ws HTTP/1.0\r\nConnection: close\r\nHost: h\r\n\r\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var req fasthttp.Request
			r := bufio.NewReader(strings.NewReader(c.in))
			if err := req.Read(r); err != nil {
				t.Fatal(err)
			}
			if req.MayContinue() { // as the server does once it said 100 Continue
				if err := req.ContinueReadBody(r, 0); err != nil {
					t.Fatal(err)
				}
			}
			if got := string(replay(&req)); got != c.want {
				t.Errorf("replay\n got %q\nwant %q", got, c.want)
			}
		})
	}
}

// TestFront_oneConnectionCrossesOver: with -http-server fast, one
// keep-alive connection posts to /rpc and /mcp (fasthttp), then to /sse
// (the legacy endpoint: handed over to net/http, with the request
// pipelined behind it), then to /rpc again (served by net/http now);
// each is answered as it would be alone, in order.
func TestFront_oneConnectionCrossesOver(t *testing.T) {
	url := startHTTP(t, "-http-server", "fast")
	c, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(20 * time.Second))
	post := func(path, id string) string {
		body := `{"jsonrpc":"2.0","id":` + id + `,"method":"echo","params":["x"]}`
		return "POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n" +
			"Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body
	}
	br := bufio.NewReader(c)
	read := func(want int, wantBody string) {
		t.Helper()
		res, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != want || !strings.Contains(string(b), wantBody) {
			t.Fatalf("%d %s, want %d with %s", res.StatusCode, b, want, wantBody)
		}
	}
	io.WriteString(c, post("/rpc", "1"))
	read(http.StatusOK, `{"jsonrpc":"2.0","id":1,"result":["x"]}`)
	// /mcp wants a session: its 400 is the same on fasthttp.
	io.WriteString(c, post("/mcp", "2"))
	read(http.StatusBadRequest, "Mcp-Session-Id")
	// /sse is net/http's only: the connection crosses over, and /rpc
	// after it is served there.
	io.WriteString(c, post("/sse", "4")+post("/rpc", "3"))
	read(http.StatusBadRequest, "sessionId")
	read(http.StatusOK, `{"jsonrpc":"2.0","id":3,"result":["x"]}`)
}
