//go:build !race

package main

import (
	"bytes"
	"net"
	"net/url"
	"strconv"
	"sync"
	"testing"
)

// answeringServer answers each HTTP request it reads with answer, allocating
// nothing per request, so that testing.AllocsPerRun counts the client's
// allocations alone (an httptest server's own would swamp them).
func answeringServer(t *testing.T, answer []byte) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	wg.Go(func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		buf := make([]byte, 64<<10)
		n := 0
		for {
			k, err := c.Read(buf[n:])
			if err != nil {
				return
			}
			n += k
			for { // each whole request read
				end := bytes.Index(buf[:n], []byte("\r\n\r\n"))
				if end < 0 {
					break
				}
				i := bytes.Index(buf[:end], []byte("Content-Length: "))
				if i < 0 {
					return
				}
				length := 0
				for _, d := range buf[i+len("Content-Length: ") : end] {
					if d < '0' || d > '9' {
						break
					}
					length = length*10 + int(d-'0')
				}
				size := end + 4 + length
				if size > n {
					break
				}
				if _, err := c.Write(answer); err != nil {
					return
				}
				n = copy(buf, buf[size:n])
			}
		}
	})
	return "http://" + ln.Addr().String() + "/rpc"
}

// TestHTTPStream_allocsPerCall: a call over loadgen's HTTP client (a
// POST sent, its answer read) allocates nothing once warm, answered as
// JSON (JSON-RPC over HTTP) or as an event stream (MCP).
func TestHTTPStream_allocsPerCall(t *testing.T) {
	const budget = 0
	result := `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"hello"}]}}`
	events := "id: a.0\nretry: 1000\ndata: \n\nid: a.1\nevent: message\ndata: " + result + "\n\n"
	for _, tc := range []struct {
		name   string
		mcp    bool
		answer string
	}{
		{"json", false, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " + strconv.Itoa(len(result)) + "\r\n\r\n" + result},
		{"events", true, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n" +
			strconv.FormatInt(int64(len(events)), 16) + "\r\n" + events + "\r\n0\r\n\r\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u, _ := url.Parse(answeringServer(t, []byte(tc.answer)))
			s, _, err := newHTTPStream(u, nil, 1, 1, tc.mcp)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			frame := s.AppendFrame(nil, []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}}`))
			call := func() {
				if err := s.Write(frame); err != nil {
					t.Fatal(err)
				}
				msg, err := s.Next()
				if err != nil || string(msg) != result {
					t.Fatalf("answer %q, %v; want %s", msg, err, result)
				}
			}
			for range 100 { // warm: the pools and buffers grow
				call()
			}
			if got := testing.AllocsPerRun(500, call); got > budget {
				t.Errorf("%v allocations per call; want at most %d", got, budget)
			}
		})
	}
}
