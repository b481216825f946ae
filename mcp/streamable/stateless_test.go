package streamable_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/mcp/streamable"
)

// meta26 is the _meta of a 2026-07-28 request that declares nothing.
const meta26 = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

// echo26 is a 2026-07-28 tools/call of echo, with id and message.
func echo26(id, message string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"echo","arguments":{"message":"` + message + `"},` + meta26 + `}}`
}

// headers26 are the headers a 2026-07-28 request of method (and name)
// carries.
func headers26(method, name string) []string {
	h := []string{"Mcp-Protocol-Version", mcp.Version20260728, "Mcp-Method", method}
	if name != "" {
		h = append(h, "Mcp-Name", name)
	}
	return h
}

// answer26 reads a JSON answer: its status, and the answer decoded.
type answer26 struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *codec.Error    `json:"error"`
}

func readAnswer(t *testing.T, resp *http.Response) (int, answer26) {
	t.Helper()
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var a answer26
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Fatalf("status %d: Content-Type %q, body %s", resp.StatusCode, ct, b)
	}
	if err := json.Unmarshal(b, &a); err != nil {
		t.Fatalf("status %d: %s: %v", resp.StatusCode, b, err)
	}
	return resp.StatusCode, a
}

// A 2026-07-28 request is served without initialize and without a
// session: nothing of it is kept, and a session of an older version is
// served beside it on the same endpoint.
func TestHTTPStateless_servedWithoutASession(t *testing.T) {
	onBothServers(t, func(t *testing.T, serveHTTP serveFunc) {
		ts, h := serveHTTP(t, echoServer(t), nil)
		p := newRawHTTP(t, ts.URL)
		resp := p.post(echo26(`"a"`, "hi"), headers26("tools/call", "echo")...)
		if resp.Header.Get("Mcp-Session-Id") != "" {
			t.Fatal("a stateless request was given a session")
		}
		st, a := readAnswer(t, resp)
		if st != http.StatusOK || string(a.ID) != `"a"` || a.Error != nil ||
			!strings.Contains(string(a.Result), `"text":"hi"`) || !strings.Contains(string(a.Result), `"resultType":"complete"`) {
			t.Fatalf("%d %s %v", st, a.Result, a.Error)
		}
		if h.Len() != 0 {
			t.Fatalf("the handler holds %d sessions", h.Len())
		}

		old := newRawHTTP(t, ts.URL)
		old.initialize(mcp.LatestVersion)
		if evs := readEvents(t, old.post(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"old"}}}`)); len(evs) != 1 ||
			strings.Contains(evs[0].data, "resultType") || !strings.Contains(evs[0].data, `"text":"old"`) {
			t.Fatalf("the 2025 session: %+v", evs)
		}
		// A session id on a stateless request is ignored.
		st, a = readAnswer(t, p.post(echo26("2", "again"), append(headers26("tools/call", "echo"), "Mcp-Session-Id", old.session)...))
		if st != http.StatusOK || !strings.Contains(string(a.Result), `"text":"again"`) {
			t.Fatalf("%d %s %v", st, a.Result, a.Error)
		}
		if h.Len() != 1 {
			t.Fatalf("the handler holds %d sessions, want the 2025 one", h.Len())
		}
	})
}

// The headers mirror the body; any that is missing or disagrees is 400
// with -32020 and the request's id, and the request is not served.
func TestHTTPStateless_headersMustMirrorTheBody(t *testing.T) {
	b64 := func(s string) string { return "=?base64?" + s + "?=" }
	cases := []struct {
		name string
		body string
		hdr  []string
		ok   bool
	}{
		{"all present", echo26("1", "x"), headers26("tools/call", "echo"), true},
		{"names in other cases", echo26("1", "x"), []string{"mcp-protocol-version", "2026-07-28", "MCP-METHOD", "tools/call", "mcp-name", "echo"}, true},
		{"white space around values", echo26("1", "x"), headers26("tools/call", "  echo\t"), true},
		{"name in Base64", echo26("1", "x"), headers26("tools/call", b64("ZWNobw==")), true},
		{"no version header", echo26("1", "x"), []string{"Mcp-Method", "tools/call", "Mcp-Name", "echo"}, false},
		{"another version", echo26("1", "x"), []string{"Mcp-Protocol-Version", "2025-11-25", "Mcp-Method", "tools/call", "Mcp-Name", "echo"}, false},
		{"no method header", echo26("1", "x"), []string{"Mcp-Protocol-Version", "2026-07-28", "Mcp-Name", "echo"}, false},
		{"another method", echo26("1", "x"), headers26("prompts/get", "echo"), false},
		{"method in another case", echo26("1", "x"), headers26("TOOLS/CALL", "echo"), false},
		{"no name header", echo26("1", "x"), headers26("tools/call", ""), false},
		{"another name", echo26("1", "x"), headers26("tools/call", "echo2"), false},
		{"Base64 unpadded", echo26("1", "x"), headers26("tools/call", b64("ZWNobw")), false},
		{"Base64 bad characters", echo26("1", "x"), headers26("tools/call", b64("ZW!!bw==")), false},
		{"Base64 of another name", echo26("1", "x"), headers26("tools/call", b64("ZWNobzI=")), false},
		{"resources/read's uri", `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"test://a",` + meta26 + `}}`,
			headers26("resources/read", "test://b"), false},
		{"tasks/get's taskId", task26("tasks/get"), headers26("tasks/get", "t2"), false},
		{"tasks/update without its name", task26("tasks/update"), headers26("tasks/update", ""), false},
		{"tasks/cancel's taskId", task26("tasks/cancel"), headers26("tasks/cancel", "t2"), false},
		{"tools/list", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + meta26 + `}}`, headers26("tools/list", ""), true},
		{"tools/list without its method", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + meta26 + `}}`,
			[]string{"Mcp-Protocol-Version", "2026-07-28"}, false},
	}
	onBothServers(t, func(t *testing.T, serveHTTP serveFunc) {
		ts, _ := serveHTTP(t, echoServer(t), nil)
		p := newRawHTTP(t, ts.URL)
		for _, c := range cases {
			st, a := readAnswer(t, p.post(c.body, c.hdr...))
			switch {
			case c.ok && (st != http.StatusOK || a.Error != nil):
				t.Errorf("%s: %d %v, want it served", c.name, st, a.Error)
			case !c.ok && (st != http.StatusBadRequest || a.Error == nil || a.Error.Code != codec.CodeHeaderMismatch || string(a.ID) != "1"):
				t.Errorf("%s: %d id %s %v, want 400 with -32020 and id 1", c.name, st, a.ID, a.Error)
			}
		}
		// With Mcp-Name its taskId, a tasks/get gets past the headers to
		// the method (which a server without tasks does not serve).
		if st, a := readAnswer(t, p.post(task26("tasks/get"), headers26("tasks/get", "t1")...)); st != http.StatusNotFound || a.Error == nil || a.Error.Code != codec.CodeMethodNotFound {
			t.Errorf("tasks/get with its taskId: %d %v, want 404 with -32601", st, a.Error)
		}
	})
}

// task26 is a 2026-07-28 request of a tasks method on task "t1".
func task26(method string) string {
	return `{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":{"taskId":"t1","inputResponses":{},` + meta26 + `}}`
}

// What the specification refuses under 2026-07-28, with its statuses:
// an unknown or removed method is 404 with -32601; an unsupported
// version 400 with -32022; a _meta without the version 400 with -32602;
// GET and DELETE 405.
func TestHTTPStateless_refusals(t *testing.T) {
	onBothServers(t, func(t *testing.T, serveHTTP serveFunc) {
		ts, _ := serveHTTP(t, echoServer(t), nil)
		p := newRawHTTP(t, ts.URL)
		for _, c := range []struct {
			method, params string
			hdr            []string
			status         int
			code           codec.Code
		}{
			{"no/such", `{` + meta26 + `}`, headers26("no/such", ""), 404, codec.CodeMethodNotFound},
			{"ping", `{` + meta26 + `}`, headers26("ping", ""), 404, codec.CodeMethodNotFound},
			{"initialize", `{` + meta26 + `}`, headers26("initialize", ""), 404, codec.CodeMethodNotFound},
			{"server/discover", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"v9","io.modelcontextprotocol/clientCapabilities":{}}}`,
				[]string{"Mcp-Protocol-Version", "v9", "Mcp-Method", "server/discover"}, 400, codec.CodeUnsupportedProtocolVersion},
			{"server/discover", `{}`, headers26("server/discover", ""), 400, codec.CodeInvalidParams},
			{"server/discover", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`, headers26("server/discover", ""), 400, codec.CodeInvalidParams},
		} {
			st, a := readAnswer(t, p.post(`{"jsonrpc":"2.0","id":7,"method":"`+c.method+`","params":`+c.params+`}`, c.hdr...))
			if st != c.status || a.Error == nil || a.Error.Code != c.code || string(a.ID) != "7" {
				t.Errorf("%s %s: %d %v, want %d with %d", c.method, c.params, st, a.Error, c.status, c.code)
			}
		}
		for _, c := range []struct {
			body string
			code codec.Code
		}{
			{`[` + echo26("1", "x") + `]`, codec.CodeInvalidRequest},
			{`{"jsonrpc":"2.0","id":1,"result":{}}`, codec.CodeInvalidRequest},
			{`{"jsonrpc":"2.0","id":1,"method":`, codec.CodeParseError},
		} {
			resp := p.post(c.body, headers26("tools/call", "echo")...)
			if resp.StatusCode != http.StatusBadRequest || errorBody(t, resp).Code != c.code {
				t.Errorf("%s: %d, want 400 with %d", c.body, resp.StatusCode, c.code)
			}
		}
		for _, m := range []string{http.MethodGet, http.MethodDelete} {
			resp := p.do(m, "", "Mcp-Protocol-Version", mcp.Version20260728)
			if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "POST" {
				t.Errorf("%s: %d, Allow %q", m, resp.StatusCode, resp.Header.Get("Allow"))
			}
			errorBody(t, resp)
		}
		// A notification is accepted, and answered nothing.
		resp := p.post(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1,`+meta26+`}}`,
			headers26("notifications/progress", "")...)
		if resp.StatusCode != http.StatusAccepted {
			t.Errorf("notification: %d", resp.StatusCode)
		}
		resp.Body.Close()
	})
}

// A handler that sends something first makes the answer an event stream
// of its own: the messages (logs at or above the request's level,
// progress), then the answer; no ids, since it is not resumed.
func TestHTTPStateless_streamCarriesRelatedMessagesThenTheAnswer(t *testing.T) {
	onBothServers(t, func(t *testing.T, serveHTTP serveFunc) {
		ts, _ := serveHTTP(t, toolServer(t), nil)
		p := newRawHTTP(t, ts.URL)
		resp := p.post(`{"jsonrpc":"2.0","id":"c1","method":"tools/call","params":{"name":"test_tool_with_logging","_meta":{"progressToken":"t",`+
			`"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"info"}}}`,
			headers26("tools/call", "test_tool_with_logging")...)
		if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" || resp.Header.Get("X-Accel-Buffering") != "no" {
			t.Fatalf("Content-Type %q, headers %v", ct, resp.Header)
		}
		evs := readEvents(t, resp)
		var got []string
		for _, ev := range evs {
			if ev.id != "" {
				t.Fatalf("event %+v has an id", ev)
			}
			got = append(got, ev.data)
		}
		want := loggingEvents
		if len(got) != 5 || strings.Join(got[:4], "\n") != strings.Join(want, "\n") ||
			!strings.HasPrefix(got[4], `{"jsonrpc":"2.0","id":"c1","result":{`) || !strings.Contains(got[4], `"text":"logged"`) {
			t.Fatalf("got\n%s\nwant\n%s\nthen the answer", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}

		// Only JSON accepted: the answer alone.
		st, a := readAnswer(t, p.post(`{"jsonrpc":"2.0","id":"c2","method":"tools/call","params":{"name":"test_tool_with_logging",`+meta26+`}}`,
			append(headers26("tools/call", "test_tool_with_logging"), "Accept", "application/json")...))
		if st != http.StatusOK || !strings.Contains(string(a.Result), `"text":"logged"`) {
			t.Fatalf("%d %s %v", st, a.Result, a.Error)
		}
	})
}

// blockingServer has a tool that logs once, then waits for its context to
// end and reports it on cancelled.
func blockingServer(t *testing.T, cancelled chan<- struct{}, logFirst bool) *mcp.Server {
	srv := echoServer(t)
	must(t, srv.AddTool(&mcp.Tool{Name: "block"}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if logFirst {
			if err := req.Log(ctx, mcp.LevelInfo, "tool", "started"); err != nil {
				return nil, err
			}
		}
		select {
		case <-ctx.Done():
			cancelled <- struct{}{}
		case <-time.After(20 * time.Second):
		}
		return &mcp.CallToolResult{}, nil
	}))
	return srv
}

const block26 = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"block","_meta":{` +
	`"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"info"}}}`

// The client closing a request's event stream cancels the request: its
// handler's context is done.
func TestHTTPStateless_closedStreamCancelsItsRequest(t *testing.T) {
	onBothServers(t, func(t *testing.T, serveHTTP serveFunc) {
		cancelled := make(chan struct{}, 1)
		ts, _ := serveHTTP(t, blockingServer(t, cancelled, true), nil)
		p := newRawHTTP(t, ts.URL)
		resp := p.post(block26, headers26("tools/call", "block")...)
		r := streamable.NewSSEReader(resp.Body, 1<<20)
		if ev := nextEvent(t, r); !strings.Contains(ev.data, `"data":"started"`) {
			t.Fatalf("first event %+v", ev)
		}
		resp.Body.Close()
		select {
		case <-cancelled:
		case <-time.After(15 * time.Second):
			t.Fatal("the handler's context did not end when its stream closed")
		}
	})
}

// On net/http, a client that goes away while its JSON answer is awaited
// cancels the request too: one that asked for log messages (served on
// the pool) and one that asked for nothing it would stream (served on
// the POST's goroutine, conn.BodySink.Here).
func TestHTTPStateless_clientGoneCancelsItsRequest(t *testing.T) {
	quiet := strings.Replace(block26, `,"io.modelcontextprotocol/logLevel":"info"`, "", 1)
	for name, body := range map[string]string{"log level": block26, "quiet": quiet} {
		t.Run(name, func(t *testing.T) {
			cancelled := make(chan struct{}, 1)
			ts, _ := serveNet(t, blockingServer(t, cancelled, false), nil)
			ctx, cancel := context.WithCancel(context.Background())
			req, err := http.NewRequestWithContext(ctx, http.MethodPost, ts.URL, strings.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			h := headers26("tools/call", "block")
			for i := 0; i < len(h); i += 2 {
				req.Header.Set(h[i], h[i+1])
			}
			tr := &http.Transport{}
			defer tr.CloseIdleConnections()
			done := make(chan struct{})
			go func() {
				defer close(done)
				if resp, err := (&http.Client{Transport: tr}).Do(req); err == nil {
					resp.Body.Close()
				}
			}()
			time.AfterFunc(100*time.Millisecond, cancel) // the handler may not have started: then it starts cancelled
			select {
			case <-cancelled:
			case <-time.After(15 * time.Second):
				t.Fatal("the handler's context did not end when its client went away")
			}
			cancel()
			<-done
		})
	}
}

// A closed handler refuses stateless requests (503), as it refuses new
// sessions.
func TestHTTPStateless_closedHandlerRefuses(t *testing.T) {
	onBothServers(t, func(t *testing.T, serveHTTP serveFunc) {
		ts, h := serveHTTP(t, echoServer(t), nil)
		p := newRawHTTP(t, ts.URL)
		if st, _ := readAnswer(t, p.post(echo26("1", "x"), headers26("tools/call", "echo")...)); st != http.StatusOK {
			t.Fatalf("before Close: %d", st)
		}
		h.Close()
		st, a := readAnswer(t, p.post(echo26("2", "x"), headers26("tools/call", "echo")...))
		if st != http.StatusServiceUnavailable || a.Error == nil || a.Error.Code != codec.CodeOverloaded {
			t.Fatalf("after Close: %d %v", st, a.Error)
		}
	})
}

// A tool's x-mcp-header arguments must come in their Mcp-Param-* headers
// too: each argument given needs its header, equal once decoded (numbers
// compared as numbers); one absent needs none.
func TestHTTPStateless_paramHeadersMirrorTheArguments(t *testing.T) {
	srv := echoServer(t)
	must(t, srv.AddTool(&mcp.Tool{Name: "sql", InputSchema: json.RawMessage(`{"type":"object","properties":{` +
		`"region":{"type":"string","x-mcp-header":"Region"},"limit":{"type":"integer","x-mcp-header":"Limit"},` +
		`"query":{"type":"string"}}}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ran"}}}, nil
		}))
	call := func(args string) string {
		return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sql","arguments":` + args + `,` + meta26 + `}}`
	}
	hdr := func(more ...string) []string { return append(headers26("tools/call", "sql"), more...) }
	cases := []struct {
		name, args string
		hdr        []string
		ok         bool
	}{
		{"both given", `{"region":"us-west1","limit":42,"query":"q"}`, hdr("Mcp-Param-Region", "us-west1", "Mcp-Param-Limit", "42"), true},
		{"a number as another form", `{"limit":42.0}`, hdr("Mcp-Param-Limit", "42"), true},
		{"Base64", `{"region":"Hello, 世界"}`, hdr("Mcp-Param-Region", "=?base64?SGVsbG8sIOS4lueVjA==?="), true},
		{"no prefix: literal", `{"region":"SGVsbG8="}`, hdr("Mcp-Param-Region", "SGVsbG8="), true},
		{"no suffix: literal", `{"region":"=?base64?SGVsbG8="}`, hdr("Mcp-Param-Region", "=?base64?SGVsbG8="), true},
		{"lower-case header name", `{"region":"eu"}`, hdr("mcp-param-region", "eu"), true},
		{"absent", `{"query":"q"}`, hdr(), true},
		{"header missing", `{"region":"eu"}`, hdr(), false},
		{"another value", `{"region":"eu"}`, hdr("Mcp-Param-Region", "us"), false},
		{"another number", `{"limit":42}`, hdr("Mcp-Param-Limit", "43"), false},
		{"Base64 unpadded", `{"region":"Hello"}`, hdr("Mcp-Param-Region", "=?base64?SGVsbG8?="), false},
		{"Base64 bad characters", `{"region":"Hello"}`, hdr("Mcp-Param-Region", "=?base64?SGVs!!!bG8=?="), false},
		{"header without argument", `{"query":"q"}`, hdr("Mcp-Param-Region", "eu"), false},
	}
	onBothServers(t, func(t *testing.T, serveHTTP serveFunc) {
		ts, _ := serveHTTP(t, srv, nil)
		p := newRawHTTP(t, ts.URL)
		for _, c := range cases {
			st, a := readAnswer(t, p.post(call(c.args), c.hdr...))
			switch {
			case c.ok && (st != http.StatusOK || a.Error != nil || !strings.Contains(string(a.Result), `"ran"`)):
				t.Errorf("%s: %d %s %v, want it served", c.name, st, a.Result, a.Error)
			case !c.ok && (st != http.StatusBadRequest || a.Error == nil || a.Error.Code != codec.CodeHeaderMismatch):
				t.Errorf("%s: %d %v, want 400 with -32020", c.name, st, a.Error)
			}
		}
	})
}

// A handler that closes its stateless request's session ends the
// connection stateless requests share; the next one starts another.
func TestHTTPStateless_closedSessionDoesNotStopTheNextRequests(t *testing.T) {
	onBothServers(t, func(t *testing.T, serveHTTP serveFunc) {
		srv := echoServer(t)
		closed := make(chan struct{})
		must(t, srv.AddTool(&mcp.Tool{Name: "close"}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			go func() { // Close waits for the running handlers, this one too
				req.Session.Close()
				close(closed)
			}()
			return &mcp.CallToolResult{}, nil
		}))
		ts, _ := serveHTTP(t, srv, nil)
		p := newRawHTTP(t, ts.URL)
		resp := p.post(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"close",`+meta26+`}}`, headers26("tools/call", "close")...)
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		select {
		case <-closed:
		case <-time.After(10 * time.Second):
			t.Fatal("the session did not close")
		}
		st, a := readAnswer(t, p.post(echo26("2", "after"), headers26("tools/call", "echo")...))
		if st != http.StatusOK || !strings.Contains(string(a.Result), `"text":"after"`) {
			t.Fatalf("after a handler closed its session: %d %v", st, a.Error)
		}
	})
}
