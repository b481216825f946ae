package streamable_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/mcp/streamable"
)

func TestSSEHandler_servesA20241105Client(t *testing.T) {
	srv := echoServer(t)
	h := streamable.NewSSEHandler(srv, nil)
	mux := http.NewServeMux()
	mux.Handle("/sse", h)
	ts := httptest.NewServer(mux)
	defer ts.Close()
	defer h.Close()

	p := newRawHTTP(t, ts.URL+"/sse")
	get := p.do(http.MethodGet, "")
	if get.StatusCode != http.StatusOK || get.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("GET: %d %v", get.StatusCode, get.Header)
	}
	r := streamable.NewSSEReader(get.Body, 1<<20)
	ep := nextEvent(t, r)
	if ep.name != "endpoint" || !strings.HasPrefix(ep.data, "/sse?sessionId=") {
		t.Fatalf("first event %+v", ep)
	}
	post := newRawHTTP(t, ts.URL+ep.data)
	send := post.accepted
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"old","version":"0"}}}`)
	if ev := nextEvent(t, r); ev.name != "message" || !strings.HasPrefix(ev.data, `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2024-11-05"`) {
		t.Fatalf("initialize answered %+v", ev)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"message":"old times"}}}`)
	if ev := nextEvent(t, r); ev.data != `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"old times"}]}}` {
		t.Fatalf("tools/call answered %+v", ev)
	}

	for _, tc := range []struct {
		url    string
		status int
	}{{ts.URL + "/sse", 400}, {ts.URL + "/sse?sessionId=nope", 404}} {
		resp := newRawHTTP(t, tc.url).post(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
		if resp.StatusCode != tc.status {
			t.Fatalf("%s: %d", tc.url, resp.StatusCode)
		}
		errorBody(t, resp)
	}

	get.Body.Close() // the client goes away: the session ends
	deadline := time.Now().Add(10 * time.Second)
	for len(srv.Sessions()) != 0 {
		if time.Now().After(deadline) {
			t.Fatal("the session outlived its stream")
		}
		time.Sleep(5 * time.Millisecond)
	}
	resp := post.post(`{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("POST after the stream ended: %d", resp.StatusCode)
	}
	errorBody(t, resp)
}

// accepted POSTs body to an HTTP+SSE session's endpoint, which must
// take it (202).
func (p *rawHTTP) accepted(body string) {
	p.t.Helper()
	resp := p.post(body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		p.t.Fatalf("POST %s: %d", body, resp.StatusCode)
	}
}
