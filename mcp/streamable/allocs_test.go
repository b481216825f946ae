package streamable_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

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

// TestStreamableHTTP_allocsJSONToolsCall keeps the handler's allocations
// per tools/call POST answered as JSON within maxAllocsJSONCall (under
// Options.JSONResponse) and maxAllocsDefaultCall (the defaults), so
// savings made on the request path cannot quietly come undone.
func TestStreamableHTTP_allocsJSONToolsCall(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates on its own")
	}
	t.Run("mode=json", func(t *testing.T) {
		testAllocsToolsCall(t, &streamable.Options{JSONResponse: true}, maxAllocsJSONCall)
	})
	t.Run("mode=default", func(t *testing.T) {
		testAllocsToolsCall(t, nil, maxAllocsDefaultCall)
	})
}

func testAllocsToolsCall(t *testing.T, opts *streamable.Options, budget int) {
	srv := mcp.NewServer(nil, nil)
	must(t, addEcho(srv))
	h := streamable.NewHandler(srv, opts)
	t.Cleanup(func() { h.Close() })
	post := func(session, body string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json, text/event-stream")
		if session != "" {
			r.Header.Set("Mcp-Session-Id", session)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	w := post("", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"a","version":"0"}}}`)
	id := w.Header().Get("Mcp-Session-Id")
	if w.Code != http.StatusOK || id == "" {
		t.Fatalf("initialize: %d %q", w.Code, w.Body)
	}
	if w := post(id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); w.Code != http.StatusAccepted {
		t.Fatalf("initialized: %d", w.Code)
	}
	const call = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hello"}}}`
	const want = `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hello"}]}}`
	if w := post(id, call); w.Code != http.StatusOK || w.Body.String() != want || w.Header().Get("Content-Type") != "application/json" {
		t.Fatalf("tools/call: %d %q %q", w.Code, w.Header().Get("Content-Type"), w.Body)
	}
	var bad *httptest.ResponseRecorder
	allocs := testing.AllocsPerRun(200, func() {
		if w := post(id, call); w.Code != http.StatusOK && bad == nil {
			bad = w
		}
	})
	if bad != nil {
		t.Fatalf("tools/call: %d %q", bad.Code, bad.Body)
	}
	t.Logf("%.0f allocs per tools/call POST answered as JSON", allocs)
	if allocs > float64(budget) {
		t.Errorf("%.0f allocs per tools/call POST answered as JSON; the budget is %d", allocs, budget)
	}
}
