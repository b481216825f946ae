package streamable_test

import (
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/valyala/fasthttp"

	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/mcp/streamable"
)

// maxAllocsStateless and maxAllocsFastStateless are the allocation
// budgets of one 2026-07-28 tools/call POST answered as JSON by the
// handler's defaults (echo tool, request and recorder included), on
// net/http and on ServeFastHTTP: measured at 37 and 12, with no slack
// (50 and 25 before the answer's state and its sinks were reused, 45 and
// 20 before the engine's keys of _meta stopped being decoded into the
// params' Meta, 41 and 16 while the version in _meta was decoded into a
// string of the heap's, 40 and 15 while the context carrying the
// request's ServerSession was an allocation of its own, and again while
// the body's context carried the transport's view of the params to
// package mcp, and the result's _meta was an allocation of its own; 38
// and 13 while the handler ran on the pool and the POST waited on a
// channel: a quiet request now runs on the POST's goroutine,
// conn.BodySink.Here). Beside maxAllocsDefaultCall and
// maxAllocsFastDefaultCall (the same call in a session), a stateless
// call adds the ServerSession package mcp makes from the request's _meta
// (with its round, context and result: one allocation), and on net/http
// the three more headers the harness sets and reads; it saves what a
// session's answer allocates (serveAnswer) and a stateless one reuses,
// and the channel a session's POST waits on.
const (
	maxAllocsStateless     = 37
	maxAllocsFastStateless = 12
)

// stateless26 is a 2026-07-28 call of echo and its headers.
const stateless26 = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hello"},` +
	`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`

var headers26Call = [][2]string{
	{"Content-Type", "application/json"}, {"Accept", "application/json, text/event-stream"},
	{"Mcp-Protocol-Version", mcp.Version20260728}, {"Mcp-Method", "tools/call"}, {"Mcp-Name", "echo"},
}

// TestStreamableHTTP_allocsStatelessToolsCall keeps a stateless call's
// allocations within its budgets.
func TestStreamableHTTP_allocsStatelessToolsCall(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates on its own")
	}
	srv := mcp.NewServer(nil, nil)
	must(t, addEcho(srv))
	h := streamable.NewHandler(srv, nil)
	t.Cleanup(func() { h.Close() })

	var w *httptest.ResponseRecorder
	postNet := func() (int, string) {
		r := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(stateless26))
		for _, kv := range headers26Call {
			r.Header.Set(kv[0], kv[1])
		}
		w = httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w.Code, w.Body.String()
	}
	var rc fasthttp.RequestCtx
	var req fasthttp.Request
	req.Header.SetMethod(http.MethodPost)
	req.SetRequestURI("/mcp")
	req.Header.SetHost("localhost")
	for _, kv := range headers26Call {
		req.Header.Set(kv[0], kv[1])
	}
	rc.Init(&req, &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 40000}, nil)
	postFast := func() (int, string) {
		rc.Request.SetBodyString(stateless26)
		rc.Response.Reset()
		h.ServeFastHTTP(&rc)
		return rc.Response.StatusCode(), string(rc.Response.Body())
	}
	for _, tc := range []struct {
		name   string
		post   func() (int, string)
		budget int
	}{
		{"server=net", postNet, maxAllocsStateless},
		{"server=fast", postFast, maxAllocsFastStateless},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if code, body := tc.post(); code != http.StatusOK || !strings.Contains(body, `"text":"hello"`) || !strings.Contains(body, `"resultType":"complete"`) {
				t.Fatalf("tools/call: %d %s", code, body)
			}
			bad := 0
			allocs := testing.AllocsPerRun(200, func() {
				if code, _ := tc.post(); code != http.StatusOK && bad == 0 {
					bad = code
				}
			})
			if bad != 0 {
				t.Fatalf("tools/call: %d", bad)
			}
			t.Logf("%.0f allocs per stateless tools/call POST answered as JSON", allocs)
			if allocs > float64(tc.budget) {
				t.Errorf("%.0f allocs per stateless tools/call POST; the budget is %d", allocs, tc.budget)
			}
		})
	}
}

// BenchmarkStreamableHTTP_handlerToolsCall is the handler's own work for
// one tools/call of echo answered as JSON, served by ServeFastHTTP on a
// RequestCtx reused as fasthttp reuses it (no network, no client): in a
// 2025-11-25 session (era=session) and on its own under 2026-07-28
// (era=stateless). Each era's headers are those bench's W8 clients send
// (the session's id and version; the version, method and name), set once
// as fasthttp would parse them for each request.
func BenchmarkStreamableHTTP_handlerToolsCall(b *testing.B) {
	const call = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hello"}}}`
	for _, era := range []string{"session", "stateless"} {
		b.Run("era="+era, func(b *testing.B) {
			srv := mcp.NewServer(nil, nil)
			must(b, addEcho(srv))
			h := streamable.NewHandler(srv, nil)
			b.Cleanup(func() { h.Close() })
			p := newFastPoster(h).(*fastPoster)
			session, body := "", stateless26
			if era == "session" {
				if code := p.post("", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"a","version":"0"}}}`); code != http.StatusOK {
					b.Fatalf("initialize: %d", code)
				}
				session, body = p.header("Mcp-Session-Id"), call
				p.post(session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
				p.rc.Request.Header.Set("Mcp-Protocol-Version", "2025-11-25")
				session = "" // set: p.post need not set it again
			} else {
				for _, kv := range headers26Call[2:] {
					p.rc.Request.Header.Set(kv[0], kv[1])
				}
			}
			b.ReportAllocs()
			for b.Loop() {
				if code := p.post(session, body); code != http.StatusOK {
					b.Fatalf("tools/call: %d %s", code, p.body())
				}
			}
		})
	}
}
