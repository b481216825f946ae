package streamable_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/mcp/streamable"
)

// httpStatuses are the statuses the Streamable HTTP handler answers with.
var httpStatuses = map[int]bool{200: true, 202: true, 204: true, 400: true, 403: true, 404: true,
	405: true, 406: true, 409: true, 413: true, 415: true, 500: true, 503: true}

// fuzzInit is the initialize request each fuzzed exchange starts its
// session with.
const fuzzInit = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"f","version":"0"}}}`

// FuzzStreamableHTTP sends arbitrary requests — method, headers, body —
// to a handler with one live session: it never panics, answers only with
// the documented statuses, and every 4xx it answers with JSON is a JSON-RPC
// error response.
func FuzzStreamableHTTP(f *testing.F) {
	for _, s := range []struct {
		method                                       uint8
		session                                      uint8
		accept, ctype, version, lastID, origin, body string
	}{
		{0, 1, "application/json, text/event-stream", "application/json", "2025-03-26", "", "", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"x"}}}`},
		{0, 1, "application/json", "application/json", "", "", "", `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"}]`},
		{0, 0, "", "application/json", "", "", "", fuzzInit},
		{0, 1, "text/event-stream", "application/json; charset=utf-8", "1999-01-01", "", "", `{"jsonrpc":"2.0","id":2,"result":{}}`},
		{0, 2, "*/*", "text/plain", "", "", "http://evil.example.com", `{`},
		{1, 1, "text/event-stream", "", "", "", "", ""},
		{1, 1, "text/event-stream", "", "", "AAAA.1", "", ""},
		{1, 1, "text/event-stream", "", "", "garbage", "null", ""},
		{2, 1, "", "", "2025-11-25", "", "", ""},
		{3, 1, "", "", "", "", "", "x"},
		{0, 1, "application/json;q=0", "application/json", "", "", "", `{"jsonrpc":"2.0","id":1,"method":"ping"}`},
		{0, 1, "application/json", "text/plain", "", "", "", `{"jsonrpc":"2.0","id":1,"method":"ping"}`},
		{0, 1, "application/json", "application/json", "", "", "", `[]`},
		{0, 1, "application/json", "application/json", "", "", "", strings.Repeat(`[`, 600)},
	} {
		f.Add(s.method, s.session, s.accept, s.ctype, s.version, s.lastID, s.origin, []byte(s.body))
	}
	f.Fuzz(func(t *testing.T, method, session uint8, accept, ctype, version, lastID, origin string, body []byte) {
		srv := mcp.NewServer(nil, nil)
		must(t, addEcho(srv))
		h := streamable.NewHandler(srv, &streamable.Options{MaxBodyBytes: 4096, RetryInterval: time.Millisecond})
		defer h.Close()
		rec := httptest.NewRecorder()
		init := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(fuzzInit))
		init.Header.Set("Content-Type", "application/json")
		init.Header.Set("Accept", "application/json")
		h.ServeHTTP(rec, init)
		id := rec.Result().Header.Get("Mcp-Session-Id")
		if id == "" {
			t.Fatalf("initialize failed: %d %s", rec.Code, rec.Body)
		}

		methods := []string{http.MethodPost, http.MethodGet, http.MethodDelete, http.MethodPut, http.MethodOptions}
		req := httptest.NewRequest(methods[int(method)%len(methods)], "/mcp", bytes.NewReader(body))
		for name, v := range map[string]string{"Accept": accept, "Content-Type": ctype, "Mcp-Protocol-Version": version, "Last-Event-ID": lastID, "Origin": origin} {
			if v != "" && !strings.ContainsAny(v, "\r\n") {
				req.Header.Set(name, v)
			}
		}
		switch session % 3 {
		case 1:
			req.Header.Set("Mcp-Session-Id", id)
		case 2:
			req.Header.Set("Mcp-Session-Id", "unknown")
		}
		ctx, cancel := context.WithTimeout(req.Context(), 20*time.Millisecond) // a stream ends here
		defer cancel()
		rec = httptest.NewRecorder()
		h.ServeHTTP(rec, req.WithContext(ctx))

		if !httpStatuses[rec.Code] {
			t.Fatalf("status %d is not one the handler documents", rec.Code)
		}
		if rec.Code >= 400 && rec.Code < 500 && rec.Header().Get("Content-Type") == "application/json" {
			var m struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      json.RawMessage `json:"id"`
				Error   *struct {
					Code    *int    `json:"code"`
					Message *string `json:"message"`
				} `json:"error"`
			}
			if err := json.Unmarshal(rec.Body.Bytes(), &m); err != nil || m.JSONRPC != "2.0" || m.ID == nil ||
				m.Error == nil || m.Error.Code == nil || m.Error.Message == nil {
				t.Fatalf("status %d: not a JSON-RPC error response: %s", rec.Code, rec.Body)
			}
		}
	})
}
