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

// maxAllocsJSONCall is the allocation budget of one JSON-mode tools/call
// POST through the handler (the echo tool, recorder and request included):
// measured at 36 when it was last lowered (39 before the body's read
// deadline was set without http.ResponseController's allocation; 44
// before that; 79 before arguments were validated on the raw JSON,
// schema_fast.go, and common params and results were decoded and encoded
// without sonic; 46 before a plain text block's string was quoted without
// boxing it), with no slack: a new allocation on this path must raise it
// knowingly.
const maxAllocsJSONCall = 36

// maxAllocsDefaultCall is the allocation budget of the same POST with the
// handler's defaults, which answer JSON unless the handler streams:
// measured at 39 when it was set (the POST's state, its sinks and the
// channel that ends its wait when the answer becomes a stream), with no
// slack.
const maxAllocsDefaultCall = 39

// maxAllocsFastJSONCall and maxAllocsFastDefaultCall are the same
// budgets for the POST served by ServeFastHTTP, on a RequestCtx reused
// as fasthttp reuses it (so no recorder or request is made per POST, and
// the difference to the net/http budgets is mostly the harness's):
// measured at 13 and 16 when they were set, with no slack.
const (
	maxAllocsFastJSONCall    = 13
	maxAllocsFastDefaultCall = 16
)

// TestStreamableHTTP_allocsJSONToolsCall keeps the handler's allocations
// per tools/call POST answered as JSON within maxAllocsJSONCall (under
// Options.JSONResponse) and maxAllocsDefaultCall (the defaults), and
// within the fasthttp budgets when ServeFastHTTP serves it, so savings
// made on the request path cannot quietly come undone.
func TestStreamableHTTP_allocsJSONToolsCall(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates on its own")
	}
	for _, tc := range []struct {
		name   string
		opts   *streamable.Options
		budget int
		poster func(h *streamable.Handler) poster
	}{
		{"server=net/mode=json", &streamable.Options{JSONResponse: true}, maxAllocsJSONCall, newNetPoster},
		{"server=net/mode=default", nil, maxAllocsDefaultCall, newNetPoster},
		{"server=fast/mode=json", &streamable.Options{JSONResponse: true}, maxAllocsFastJSONCall, newFastPoster},
		{"server=fast/mode=default", nil, maxAllocsFastDefaultCall, newFastPoster},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := mcp.NewServer(nil, nil)
			must(t, addEcho(srv))
			h := streamable.NewHandler(srv, tc.opts)
			t.Cleanup(func() { h.Close() })
			testAllocsToolsCall(t, tc.poster(h), tc.budget)
		})
	}
}

// poster POSTs bodies to a handler in process, and shows the last
// answer.
type poster interface {
	// post POSTs body in the session ("": none) and returns the status.
	post(session, body string) int
	header(name string) string
	body() string
}

// netPoster serves the POSTs with ServeHTTP.
type netPoster struct {
	h *streamable.Handler
	w *httptest.ResponseRecorder
}

func newNetPoster(h *streamable.Handler) poster { return &netPoster{h: h} }

func (p *netPoster) post(session, body string) int {
	r := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		r.Header.Set("Mcp-Session-Id", session)
	}
	p.w = httptest.NewRecorder()
	p.h.ServeHTTP(p.w, r)
	return p.w.Code
}

func (p *netPoster) header(name string) string { return p.w.Header().Get(name) }
func (p *netPoster) body() string              { return p.w.Body.String() }

// fastPoster serves the POSTs with ServeFastHTTP, on one RequestCtx as
// fasthttp's connection goroutine does.
type fastPoster struct {
	h  *streamable.Handler
	rc fasthttp.RequestCtx
}

func newFastPoster(h *streamable.Handler) poster {
	p := &fastPoster{h: h}
	var req fasthttp.Request
	req.Header.SetMethod(http.MethodPost)
	req.SetRequestURI("/mcp")
	req.Header.SetHost("localhost")
	req.Header.SetContentType("application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	p.rc.Init(&req, &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 40000}, nil)
	return p
}

func (p *fastPoster) post(session, body string) int {
	if session != "" {
		p.rc.Request.Header.Set("Mcp-Session-Id", session)
	}
	p.rc.Request.SetBodyString(body)
	p.rc.Response.Reset()
	p.h.ServeFastHTTP(&p.rc)
	return p.rc.Response.StatusCode()
}

func (p *fastPoster) header(name string) string {
	if name == "Content-Type" {
		return string(p.rc.Response.Header.ContentType())
	}
	return string(p.rc.Response.Header.Peek(name))
}

func (p *fastPoster) body() string { return string(p.rc.Response.Body()) }

func testAllocsToolsCall(t *testing.T, p poster, budget int) {
	if code := p.post("", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"a","version":"0"}}}`); code != http.StatusOK || p.header("Mcp-Session-Id") == "" {
		t.Fatalf("initialize: %d %q", code, p.body())
	}
	id := p.header("Mcp-Session-Id")
	if code := p.post(id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); code != http.StatusAccepted {
		t.Fatalf("initialized: %d", code)
	}
	const call = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hello"}}}`
	const want = `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hello"}]}}`
	if code := p.post(id, call); code != http.StatusOK || p.body() != want || p.header("Content-Type") != "application/json" {
		t.Fatalf("tools/call: %d %q %q", code, p.header("Content-Type"), p.body())
	}
	bad := 0
	allocs := testing.AllocsPerRun(200, func() {
		if code := p.post(id, call); code != http.StatusOK && bad == 0 {
			bad = code
		}
	})
	if bad != 0 {
		t.Fatalf("tools/call: %d %q", bad, p.body())
	}
	t.Logf("%.0f allocs per tools/call POST answered as JSON", allocs)
	if allocs > float64(budget) {
		t.Errorf("%.0f allocs per tools/call POST answered as JSON; the budget is %d", allocs, budget)
	}
}
