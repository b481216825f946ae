package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/codec"
)

func TestParseHead(t *testing.T) {
	for _, tc := range []struct {
		head string
		want string // the fields of head, or "error"
	}{
		{"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 47\r\n\r\n", "200 47 chunked=false keep=true json=true sse=false session="},
		{"HTTP/1.1 200 OK\r\ncontent-type: Application/JSON; charset=utf-8\r\ncontent-length:47\r\n\r\n", "200 47 chunked=false keep=true json=true sse=false session="},
		{"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\nContent-Length: 9\r\nMcp-Session-Id: abc\r\n\r\n", "200 -1 chunked=true keep=true json=false sse=true session=abc"},
		{"HTTP/1.1 202 Accepted\r\nConnection: close\r\nContent-Length: 0\r\n\r\n", "202 0 chunked=false keep=false json=false sse=false session="},
		{"HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\n", "200 2 chunked=false keep=false json=false sse=false session="},
		{"HTTP/1.1 404\r\n\r\n", "404 -1 chunked=false keep=true json=false sse=false session="},
		{"HTTP/1.1 2OO OK\r\n\r\n", "error"},
		{"HTTP/2 200 OK\r\n\r\n", "error"},
		{"HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", "error"},
		{"HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", "error"},
		{"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", "error"},
		{"HTTP/1.1 200 OK\r\nno colon\r\n\r\n", "error"},
	} {
		h, err := parseHead([]byte(tc.head))
		got := "error"
		if err == nil {
			got = fmt.Sprintf("%d %d chunked=%v keep=%v json=%v sse=%v session=%s", h.status, h.length, h.chunked, h.keepAlive, h.json, h.sse, h.session)
		}
		if got != tc.want {
			t.Errorf("parseHead(%q) = %s; want %s", tc.head, got, tc.want)
		}
	}
}

func TestChunkSize(t *testing.T) {
	for _, tc := range []struct {
		line string
		n    int64
		ok   bool
	}{
		{"1a\r\n", 26, true}, {"FF;ext=1\r\n", 255, true}, {"0\r\n", 0, true}, {"10 \r\n", 16, true},
		{"\r\n", 0, false}, {"g\r\n", 0, false}, {"-1\r\n", 0, false}, {"1234567890abcdef\r\n", 0, false},
	} {
		if n, ok := chunkSize([]byte(tc.line)); n != tc.n || ok != tc.ok {
			t.Errorf("chunkSize(%q) = %d, %v; want %d, %v", tc.line, n, ok, tc.n, tc.ok)
		}
	}
}

func TestLaneEvents(t *testing.T) {
	for _, tc := range []struct {
		body string
		want []string
	}{
		{"id: 1\nretry: 1000\ndata: \n\nid: 2\nevent: message\ndata: {\"a\":1}\n\n", []string{"", `{"a":1}`}},
		{"data: one\r\ndata:two\r\n\r\n: a comment\r\n\r\n", []string{"one\ntwo"}},
		{"data\n\ndataset: x\ndata: y\n\n", []string{"", "y"}},
		{"data: whole\n\ndata: cut short\n", []string{"whole"}},
	} {
		var l lane
		l.events([]byte(tc.body))
		var got []string
		for _, sp := range l.spans {
			got = append(got, string(l.data[sp.from:sp.to]))
		}
		if strings.Join(got, "|") != strings.Join(tc.want, "|") || len(got) != len(tc.want) {
			t.Errorf("events of %q: %q; want %q", tc.body, got, tc.want)
		}
	}
}

func TestRequestIDAndResponseTo(t *testing.T) {
	sc := codec.NewScanner(nil)
	for _, tc := range []struct {
		msg, id string
	}{
		{`{"jsonrpc":"2.0","id":12,"method":"echo"}`, "12"},
		{`{"jsonrpc":"2.0","id":"loadgen-initialize","method":"initialize","params":{}}`, `"loadgen-initialize"`},
		{`{"id":3,"jsonrpc":"2.0","method":"echo"}`, "3"}, // another layout: the scanner reads it
		{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, ""},
		{`{"jsonrpc":"2.0","id":5,"result":{}}`, ""},
		{`[{"jsonrpc":"2.0","id":1,"method":"echo"}]`, ""},
	} {
		if got := string(requestID([]byte(tc.msg), sc)); got != tc.id {
			t.Errorf("requestID(%s) = %q; want %q", tc.msg, got, tc.id)
		}
	}
	for _, tc := range []struct {
		msg  string
		want bool
	}{
		{`{"jsonrpc":"2.0","id":7,"result":{}}`, true},
		{`{"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"x"}}`, true},
		{`{"result":{},"id":7,"jsonrpc":"2.0"}`, true},
		{`{"jsonrpc":"2.0","id":70,"result":{}}`, false},
		{`{"jsonrpc":"2.0","method":"notifications/progress","params":{"id":7}}`, false},
	} {
		if got := responseTo([]byte(tc.msg), []byte("7"), sc); got != tc.want {
			t.Errorf("responseTo(%s, 7) = %v; want %v", tc.msg, got, tc.want)
		}
	}
}
