package streamable_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/mcp/streamable"
	"github.com/mcpwire/mcpwire/transport"
)

func TestHTTP_initializeStartsASession(t *testing.T) {
	onBothServers(t, func(t *testing.T, serveHTTP serveFunc) {
		ts, _ := serveHTTP(t, echoServer(t), nil)
		p := newRawHTTP(t, ts.URL)
		p.initialize(mcp.LatestVersion)
		if len(p.session) < 20 {
			t.Fatalf("session id %q: too short to be unguessable", p.session)
		}
		for _, c := range p.session {
			if c < 0x21 || c > 0x7e {
				t.Fatalf("session id %q: not visible ASCII", p.session)
			}
		}
		q := newRawHTTP(t, ts.URL)
		q.initialize(mcp.LatestVersion)
		if q.session == p.session {
			t.Fatal("two sessions got the same id")
		}

		// Only JSON accepted: a JSON answer.
		r := newRawHTTP(t, ts.URL)
		resp := r.post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"j","version":"0"}}}`, "Accept", "application/json")
		evs := readEvents(t, resp)
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" || resp.Header.Get("Mcp-Session-Id") == "" ||
			len(evs) != 1 || !strings.HasPrefix(evs[0].data, `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18"`) {
			t.Fatalf("%d %v %+v", resp.StatusCode, resp.Header, evs)
		}

		// A refused initialize starts no session.
		resp = r.post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":7}}`, "Mcp-Session-Id", "")
		evs = readEvents(t, resp)
		if resp.Header.Get("Mcp-Session-Id") != "" || len(evs) != 1 || !strings.Contains(evs[0].data, `"code":-32602`) {
			t.Fatalf("%d %v %+v", resp.StatusCode, resp.Header, evs)
		}
	})
}

func TestHTTP_sessionHeaderIsRequiredAndChecked(t *testing.T) {
	onBothServers(t, func(t *testing.T, serveHTTP serveFunc) {
		ts, _ := serveHTTP(t, echoServer(t), nil)
		p := newRawHTTP(t, ts.URL)
		ping := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
		if resp := p.post(ping); resp.StatusCode != http.StatusBadRequest || errorBody(t, resp).Code != codec.CodeInvalidRequest {
			t.Fatalf("no session: %d", resp.StatusCode)
		}
		p.session = "NOSUCHSESSION"
		if resp := p.post(ping); resp.StatusCode != http.StatusNotFound {
			t.Fatalf("unknown session: %d", resp.StatusCode)
		} else {
			errorBody(t, resp)
		}
		p.session = ""
		p.initialize(mcp.LatestVersion)
		if evs := readEvents(t, p.post(ping)); len(evs) != 1 || evs[0].data != `{"jsonrpc":"2.0","id":1,"result":{}}` {
			t.Fatalf("%+v", evs)
		}
		resp := p.do(http.MethodDelete, "")
		if resp.StatusCode != http.StatusNoContent {
			t.Fatalf("DELETE: %d", resp.StatusCode)
		}
		resp.Body.Close()
		for _, m := range []string{http.MethodPost, http.MethodGet, http.MethodDelete} {
			resp := p.do(m, ping)
			if resp.StatusCode != http.StatusNotFound {
				t.Fatalf("%s after DELETE: %d", m, resp.StatusCode)
			}
			errorBody(t, resp)
		}
	})
}

func TestHTTP_protocolVersionHeader(t *testing.T) {
	onBothServers(t, func(t *testing.T, serveHTTP serveFunc) {
		ts, _ := serveHTTP(t, echoServer(t), nil)
		p := newRawHTTP(t, ts.URL)
		p.initialize(mcp.LatestVersion)
		for _, v := range append(mcp.SupportedVersions(), "") { // any supported version, or none
			if evs := readEvents(t, p.post(`{"jsonrpc":"2.0","id":1,"method":"ping"}`, "Mcp-Protocol-Version", v)); len(evs) != 1 {
				t.Fatalf("version %q: %+v", v, evs)
			}
		}
		for _, v := range []string{"2099-01-01", "garbage"} {
			resp := p.post(`{"jsonrpc":"2.0","id":1,"method":"ping"}`, "Mcp-Protocol-Version", v)
			if resp.StatusCode != http.StatusBadRequest || !strings.Contains(errorBody(t, resp).Message, v) {
				t.Fatalf("version %q: %d", v, resp.StatusCode)
			}
		}
	})
}

func TestHTTP_refusesWhatTheSpecificationRefuses(t *testing.T) {
	onBothServers(t, func(t *testing.T, serveHTTP serveFunc) {
		ts, _ := serveHTTP(t, echoServer(t), &streamable.Options{MaxBodyBytes: 1024})
		p := newRawHTTP(t, ts.URL)
		p.initialize(mcp.LatestVersion)
		ping := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
		for _, tc := range []struct {
			name   string
			method string
			body   string
			hdr    []string
			status int
			code   codec.Code
		}{
			{"no content type", "POST", ping, []string{"Content-Type", ""}, 415, codec.CodeInvalidRequest},
			{"text content type", "POST", ping, []string{"Content-Type", "text/plain"}, 415, codec.CodeInvalidRequest},
			{"accepts html only", "POST", ping, []string{"Accept", "text/html"}, 406, codec.CodeInvalidRequest},
			{"refuses both", "POST", ping, []string{"Accept", "application/json;q=0, text/event-stream;q=0"}, 406, codec.CodeInvalidRequest},
			{"GET accepts json only", "GET", "", []string{"Accept", "application/json"}, 406, codec.CodeInvalidRequest},
			{"too large", "POST", `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"` + strings.Repeat("x", 2000) + `"}}`, nil, 413, codec.CodeInvalidRequest},
			{"not JSON", "POST", `{"jsonrpc":`, nil, 400, codec.CodeParseError},
			{"not a message", "POST", `{"jsonrpc":"1.0","id":1,"method":"ping"}`, nil, 400, codec.CodeInvalidRequest},
			{"PUT", "PUT", ping, nil, 405, codec.CodeInvalidRequest},
			{"batch on 2025-11-25", "POST", `[` + ping + `]`, nil, 400, codec.CodeInvalidRequest},
		} {
			t.Run(tc.name, func(t *testing.T) {
				resp := p.do(tc.method, tc.body, tc.hdr...)
				if resp.StatusCode != tc.status {
					t.Fatalf("status %d, want %d", resp.StatusCode, tc.status)
				}
				if tc.name == "not a message" { // its id could be read: the error carries it
					evs := readEvents(t, resp)
					if len(evs) != 1 || !strings.HasPrefix(evs[0].data, `{"jsonrpc":"2.0","id":1,"error":{"code":-32600,`) {
						t.Fatalf("%+v", evs)
					}
					return
				}
				if e := errorBody(t, resp); e.Code != tc.code {
					t.Fatalf("code %d, want %d (%s)", e.Code, tc.code, e.Message)
				}
			})
		}
		// An empty Accept accepts anything (RFC 9110).
		if evs := readEvents(t, p.post(ping, "Accept", "")); len(evs) == 0 || !strings.Contains(evs[len(evs)-1].data, `"result":{}`) {
			t.Fatalf("no Accept: %+v", evs)
		}
	})
}

func TestHTTP_batchesUnder20250326(t *testing.T) {
	onBothServers(t, func(t *testing.T, serveHTTP serveFunc) {
		ts, _ := serveHTTP(t, echoServer(t), nil)
		p := newRawHTTP(t, ts.URL)
		p.initialize(mcp.Version20250326)
		resp := p.post(`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}},{"jsonrpc":"2.0","id":2,"method":"ping"}]`, "Accept", "application/json")
		evs := readEvents(t, resp)
		if len(evs) != 1 || evs[0].data != `[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","id":2,"result":{}}]` {
			t.Fatalf("%+v", evs)
		}
		// initialize goes alone.
		resp = p.post(`[{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}]`, "Mcp-Session-Id", "")
		if resp.StatusCode != http.StatusBadRequest {
			t.Fatalf("initialize in a batch: %d", resp.StatusCode)
		}
		errorBody(t, resp)
	})
}

func TestHTTP_notificationsAndResponsesAreAccepted(t *testing.T) {
	onBothServers(t, func(t *testing.T, serveHTTP serveFunc) {
		ts, _ := serveHTTP(t, echoServer(t), nil)
		p := newRawHTTP(t, ts.URL)
		p.initialize(mcp.LatestVersion)
		for _, body := range []string{
			`{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`,
			`{"jsonrpc":"2.0","id":99,"result":{}}`,
			`{"jsonrpc":"2.0","id":98,"error":{"code":-1,"message":"no"}}`,
		} {
			resp := p.post(body)
			b := readEvents(t, resp)
			if resp.StatusCode != http.StatusAccepted || b != nil {
				t.Fatalf("%s: %d %+v", body, resp.StatusCode, b)
			}
		}
	})
}

func TestHTTP_requestStreamPrimesThenCarriesRelatedMessagesThenTheAnswer(t *testing.T) {
	onBothServers(t, func(t *testing.T, serveHTTP serveFunc) {
		ts, _ := serveHTTP(t, toolServer(t), fastRetry)
		p := newRawHTTP(t, ts.URL)
		p.initialize(mcp.LatestVersion)
		resp := p.post(`{"jsonrpc":"2.0","id":"c1","method":"tools/call","params":{"name":"test_tool_with_logging","_meta":{"progressToken":"t"}}}`)
		if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
			t.Fatalf("Content-Type %q", ct)
		}
		r := streamable.NewSSEReader(resp.Body, 1<<20)
		defer resp.Body.Close()
		prime := nextEvent(t, r)
		if prime.id == "" || prime.data != "" || r.Retry() != 20*time.Millisecond {
			t.Fatalf("priming event %+v, retry %v", prime, r.Retry())
		}
		ids := map[string]bool{prime.id: true}
		var got []string
		for range 5 {
			ev := nextEvent(t, r)
			if ev.name != "message" || ids[ev.id] {
				t.Fatalf("event %+v: not a message with an id of its own", ev)
			}
			ids[ev.id] = true
			got = append(got, ev.data)
		}
		want := append(slices.Clone(loggingEvents), `{"jsonrpc":"2.0","id":"c1","result":{"content":[{"type":"text","text":"logged"}]}}`)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		if _, _, _, err := r.Next(); err == nil {
			t.Fatal("the stream goes on after its answer")
		}
	})
}

func TestHTTP_samplingRequestGoesOnThePostStreamAndItsAnswerIsAccepted(t *testing.T) {
	onBothServers(t, func(t *testing.T, serveHTTP serveFunc) {
		ts, _ := serveHTTP(t, toolServer(t), fastRetry)
		p := newRawHTTP(t, ts.URL)
		p.initialize(mcp.LatestVersion)
		resp := p.post(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"test_sampling"}}`)
		defer resp.Body.Close()
		r := streamable.NewSSEReader(resp.Body, 1<<20)
		nextEvent(t, r) // priming
		ev := nextEvent(t, r)
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if err := json.Unmarshal([]byte(ev.data), &req); err != nil || req.Method != "sampling/createMessage" {
			t.Fatalf("the stream carried %+v", ev)
		}
		answer := p.post(`{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":{"role":"assistant","content":{"type":"text","text":"hi"},"model":"m"}}`)
		answer.Body.Close()
		if answer.StatusCode != http.StatusAccepted {
			t.Fatalf("the client's answer: %d", answer.StatusCode)
		}
		if ev := nextEvent(t, r); ev.data != `{"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"LLM response: hi"}]}}` {
			t.Fatalf("answer %+v", ev)
		}
	})
}

// The conformance suite's test_reconnection: the tool closes its stream
// mid-call; a GET with the last event id gets the rest and the result.
func TestHTTP_closedStreamIsResumedWithLastEventID(t *testing.T) {
	onBothServers(t, func(t *testing.T, serveHTTP serveFunc) {
		ts, _ := serveHTTP(t, toolServer(t), fastRetry)
		p := newRawHTTP(t, ts.URL)
		p.initialize(mcp.LatestVersion)
		evs := readEvents(t, p.post(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"test_reconnection","arguments":{}}}`, "Mcp-Protocol-Version", "2025-03-26"))
		if len(evs) != 2 || evs[0].data != "" || !strings.Contains(evs[1].data, "before the stream closes") {
			t.Fatalf("before the close: %+v", evs)
		}
		resp := p.do(http.MethodGet, "", "Last-Event-ID", evs[1].id)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET: %d", resp.StatusCode)
		}
		rest := readEvents(t, resp)
		if len(rest) != 2 || !strings.Contains(rest[0].data, "while the client is away") ||
			rest[1].data != `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"Reconnection test completed"}]}}` {
			t.Fatalf("after resuming: %+v", rest)
		}
		// The stream is done: resuming it again replays what followed.
		again := readEvents(t, p.do(http.MethodGet, "", "Last-Event-ID", rest[0].id))
		if len(again) != 1 || again[0] != rest[1] {
			t.Fatalf("resumed again: %+v", again)
		}
		for _, bad := range []string{"x", "nodot", "s.notanumber"} {
			if resp := p.do(http.MethodGet, "", "Last-Event-ID", bad); resp.StatusCode != http.StatusBadRequest {
				t.Fatalf("Last-Event-ID %q: %d", bad, resp.StatusCode)
			} else {
				resp.Body.Close()
			}
		}
		// Another session cannot replay this one's events.
		q := newRawHTTP(t, ts.URL)
		q.initialize(mcp.LatestVersion)
		if evs := readEvents(t, q.do(http.MethodGet, "", "Last-Event-ID", evs[0].id)); len(evs) != 0 {
			t.Fatalf("another session replayed %+v", evs)
		}
	})
}

func TestHTTP_standaloneStream(t *testing.T) {
	onBothServers(t, func(t *testing.T, serveHTTP serveFunc) {
		srv := mcp.NewServer(nil, &mcp.ServerOptions{Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolsCapability{ListChanged: true}}})
		ts, _ := serveHTTP(t, srv, fastRetry)
		p := newRawHTTP(t, ts.URL)
		p.initialize(mcp.LatestVersion)
		// What is sent before the stream opens waits for it.
		must(t, addEcho(srv))
		resp := p.do(http.MethodGet, "")
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
			t.Fatalf("GET: %d %v", resp.StatusCode, resp.Header)
		}
		r := streamable.NewSSEReader(resp.Body, 1<<20)
		ev := nextEvent(t, r)
		if ev.data == "" {
			// The list_changed goes out from a goroutine of the session: on a
			// loaded machine it may not be queued yet when the GET arrives,
			// which then opens with its priming event.
			ev = nextEvent(t, r)
		}
		if ev.data != `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}` {
			t.Fatalf("first event %+v", ev)
		}
		if again := p.do(http.MethodGet, ""); again.StatusCode != http.StatusConflict {
			t.Fatalf("a second GET: %d", again.StatusCode)
		} else {
			errorBody(t, again)
		}
		srv.RemoveTools("echo")
		ev = nextEvent(t, r)
		if ev.data != `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}` {
			t.Fatalf("second event %+v", ev)
		}
		// The connection breaks; a change happens; the client resumes.
		resp.Body.Close()
		must(t, addEcho(srv))
		resumed := p.do(http.MethodGet, "", "Last-Event-ID", ev.id)
		defer resumed.Body.Close()
		if got := nextEvent(t, streamable.NewSSEReader(resumed.Body, 1<<20)); got.data != ev.data || got.id == ev.id {
			t.Fatalf("resumed with %+v", got)
		}
	})
}

// A client that goes away from the standalone stream lets it go: the
// server notices the connection closed (on fasthttp, by watching it while
// the stream is written), and the next GET opens the stream again rather
// than finding it busy (409).
func TestHTTP_standaloneStreamIsFreedWhenItsClientLeaves(t *testing.T) {
	onBothServers(t, func(t *testing.T, serveHTTP serveFunc) {
		ts, _ := serveHTTP(t, echoServer(t), nil)
		p := newRawHTTP(t, ts.URL)
		p.initialize(mcp.LatestVersion)
		resp := p.do(http.MethodGet, "")
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET: %d", resp.StatusCode)
		}
		nextEvent(t, streamable.NewSSEReader(resp.Body, 1<<20)) // priming: the stream is open
		resp.Body.Close()                                       // mid-stream: the connection closes
		deadline := time.Now().Add(10 * time.Second)
		for i := 0; ; i++ {
			again := p.do(http.MethodGet, "")
			if again.StatusCode == http.StatusOK {
				again.Body.Close()
				return
			}
			errorBody(t, again)
			if again.StatusCode != http.StatusConflict || i == 1000 || time.Now().After(deadline) {
				t.Fatalf("GET after the client left: %d (try %d)", again.StatusCode, i+1)
			}
			time.Sleep(10 * time.Millisecond)
		}
	})
}

func TestHTTP_standaloneStreamMayBeDisabled(t *testing.T) {
	onBothServers(t, func(t *testing.T, serveHTTP serveFunc) {
		ts, _ := serveHTTP(t, echoServer(t), &streamable.Options{DisableStandaloneSSE: true})
		p := newRawHTTP(t, ts.URL)
		p.initialize(mcp.LatestVersion)
		resp := p.do(http.MethodGet, "")
		if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") == "" {
			t.Fatalf("GET: %d %v", resp.StatusCode, resp.Header)
		}
		errorBody(t, resp)
	})
}

func TestHTTP_threeConcurrentPostStreams(t *testing.T) {
	onBothServers(t, func(t *testing.T, serveHTTP serveFunc) {
		srv := mcp.NewServer(nil, nil)
		all := make(chan struct{})
		var arrived sync.WaitGroup
		arrived.Add(3)
		go func() { arrived.Wait(); close(all) }()
		must(t, srv.AddTool(&mcp.Tool{Name: "meet"}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			arrived.Done()
			<-all // returns only once all three run at once
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "met"}}}, nil
		}))
		ts, _ := serveHTTP(t, srv, nil)
		p := newRawHTTP(t, ts.URL)
		p.initialize(mcp.LatestVersion)
		var wg sync.WaitGroup
		for i := range 3 {
			wg.Go(func() {
				// The first takes only an event stream (a priming event, then
				// the answer); the others get the answer as JSON.
				accept, want := "application/json, text/event-stream", 1
				if i == 0 {
					accept, want = "text/event-stream", 2
				}
				resp := p.post(`{"jsonrpc":"2.0","id":`+string(rune('1'+i))+`,"method":"tools/call","params":{"name":"meet"}}`, "Accept", accept)
				evs := readEvents(t, resp)
				if len(evs) != want || !strings.Contains(evs[want-1].data, `"text":"met"`) {
					t.Errorf("stream %d: %+v", i, evs)
				}
			})
		}
		wg.Wait()
	})
}

func TestHTTP_jsonResponseModeSendsRelatedMessagesOnTheGetStream(t *testing.T) {
	onBothServers(t, func(t *testing.T, serveHTTP serveFunc) {
		ts, _ := serveHTTP(t, toolServer(t), &streamable.Options{JSONResponse: true})
		p := newRawHTTP(t, ts.URL)
		resp := p.post(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`)
		readEvents(t, resp)
		if resp.Header.Get("Content-Type") != "application/json" {
			t.Fatalf("initialize answered as %q", resp.Header.Get("Content-Type"))
		}
		p.session = resp.Header.Get("Mcp-Session-Id")
		get := p.do(http.MethodGet, "")
		defer get.Body.Close()
		r := streamable.NewSSEReader(get.Body, 1<<20)
		nextEvent(t, r) // priming
		evs := readEvents(t, p.post(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"test_tool_with_logging"}}`))
		if len(evs) != 1 || evs[0].data != `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"logged"}]}}` {
			t.Fatalf("%+v", evs)
		}
		for _, m := range []string{"started", "processing", "completed"} {
			if ev := nextEvent(t, r); !strings.Contains(ev.data, m) {
				t.Fatalf("GET stream: %+v, want %s", ev, m)
			}
		}
	})
}

func TestHTTP_dnsRebindingIsRefusedOnLoopback(t *testing.T) {
	onBothServers(t, func(t *testing.T, serveHTTP serveFunc) {
		ts, _ := serveHTTP(t, echoServer(t), nil)
		init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"0"}}}`
		port := ts.URL[strings.LastIndexByte(ts.URL, ':'):]
		p := newRawHTTP(t, ts.URL)
		for _, tc := range []struct {
			host, origin string
			ok           bool
		}{
			{"evil.example.com", "http://evil.example.com", false},
			{"evil.example.com" + port, "", false},
			{"127.0.0.1" + port, "http://evil.example.com", false},
			{"127.0.0.1" + port, "null", false},
			{"localhost" + port, "http://localhost" + port, true},
			{"127.0.0.1" + port, "http://127.0.0.1" + port, true},
			{"[::1]" + port, "http://[::1]" + port, true},
			{"localhost", "", true},
		} {
			resp := p.post(init, "Host", tc.host, "Origin", tc.origin)
			if ok := resp.StatusCode == http.StatusOK; ok != tc.ok {
				t.Fatalf("Host %q Origin %q: %d", tc.host, tc.origin, resp.StatusCode)
			}
			if !tc.ok {
				if e := errorBody(t, resp); e.Code != codec.CodeForbidden || resp.StatusCode != http.StatusForbidden {
					t.Fatalf("Host %q Origin %q: %d %v", tc.host, tc.origin, resp.StatusCode, e)
				}
			} else {
				readEvents(t, resp)
			}
		}
	})
}

func TestHTTP_allowListsWidenTheChecks(t *testing.T) {
	onBothServers(t, func(t *testing.T, serveHTTP serveFunc) {
		ts, _ := serveHTTP(t, echoServer(t), &streamable.Options{HTTPOptions: transport.HTTPOptions{
			HostPolicy: transport.HostPolicy{
				AllowedHosts:   []string{"mcp.example.com"},
				AllowedOrigins: []string{"https://app.example.com"},
			},
		}})
		init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"0"}}}`
		p := newRawHTTP(t, ts.URL)
		for _, tc := range []struct {
			host, origin string
			ok           bool
		}{
			{"mcp.example.com:443", "https://app.example.com", true},
			{"mcp.example.com", "https://mcp.example.com", true}, // its own origin
			{"mcp.example.com", "https://other.example.com", false},
			{"other.example.com", "", false},
		} {
			resp := p.post(init, "Host", tc.host, "Origin", tc.origin)
			readEvents(t, resp)
			if ok := resp.StatusCode == http.StatusOK; ok != tc.ok {
				t.Fatalf("Host %q Origin %q: %d", tc.host, tc.origin, resp.StatusCode)
			}
		}
	})
}

// A session in use outlives SessionTimeout; one left idle for it
// expires (on the bubble's clock: the test waits for no real time).
func TestHTTP_idleSessionsExpire(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const timeout = 100 * time.Millisecond
		p := rawHTTPInMemory(t, bubbleServer(t, nil), &streamable.Options{SessionTimeout: timeout})
		p.initialize(mcp.LatestVersion)
		for range 4 { // in use past the timeout: alive (pings would not count: KeepAlive)
			time.Sleep(timeout * 2 / 5)
			if evs := readEvents(t, p.post(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)); len(evs) != 1 {
				t.Fatalf("%+v", evs)
			}
		}
		time.Sleep(timeout - time.Millisecond)
		synctest.Wait()
		resp := p.post(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("idle for less than the timeout: %d", resp.StatusCode)
		}
		// Idle since the last tools/list for half as long again (the
		// ping is no use), past the idle check's slack of a quarter.
		time.Sleep(timeout / 2)
		synctest.Wait()
		resp = p.post(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Fatalf("idle for the timeout: %d, want 404", resp.StatusCode)
		}
	})
}

// Two handlers (two instances of a server) share their stores: a session
// started on one is served by the other, and deleted everywhere.
func TestHTTP_sharedStoresLetAnotherInstanceTakeASessionOver(t *testing.T) {
	opts := &streamable.Options{SessionStore: streamable.NewMemorySessionStore(), EventStore: streamable.NewMemoryEventStore(0, 0)}
	a, _ := serveHTTP(t, echoServer(t), opts)
	b, _ := serveHTTP(t, echoServer(t), opts)
	p := newRawHTTP(t, a.URL)
	p.initialize(mcp.Version20250618)
	q := newRawHTTP(t, b.URL)
	q.session, q.version = p.session, p.version
	evs := readEvents(t, q.post(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"on b"}}}`))
	if len(evs) != 1 || !strings.Contains(evs[0].data, `"text":"on b"`) {
		t.Fatalf("%+v", evs)
	}
	resp := q.do(http.MethodDelete, "")
	resp.Body.Close()
	if resp := q.post(`{"jsonrpc":"2.0","id":1,"method":"ping"}`); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("after DELETE on b: %d", resp.StatusCode)
	} else {
		errorBody(t, resp)
	}
}

func TestHTTP_closedHandlerRefusesNewSessions(t *testing.T) {
	ts, h := serveHTTP(t, echoServer(t), nil)
	p := newRawHTTP(t, ts.URL)
	p.initialize(mcp.LatestVersion)
	must(t, h.Close())
	if resp := p.post(`{"jsonrpc":"2.0","id":1,"method":"ping"}`); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("a session after Close: %d", resp.StatusCode)
	} else {
		errorBody(t, resp)
	}
	q := newRawHTTP(t, ts.URL)
	resp := q.post(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`)
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("initialize after Close: %d", resp.StatusCode)
	}
	errorBody(t, resp)
}
