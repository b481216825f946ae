package streamable_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/mcp/streamable"
)

// rawHTTP speaks Streamable HTTP to a handler by hand, for the tests that
// look at statuses, headers and events.
type rawHTTP struct {
	t       *testing.T
	url     string
	session string
	version string
	client  *http.Client

	mu   sync.Mutex
	open []*http.Response // closed when the test ends, whatever it read
}

func newRawHTTP(t *testing.T, url string) *rawHTTP {
	tr := &http.Transport{}
	p := &rawHTTP{t: t, url: url, client: &http.Client{Transport: tr, Timeout: 20 * time.Second}}
	t.Cleanup(func() {
		p.mu.Lock()
		for _, r := range p.open {
			r.Body.Close()
		}
		p.mu.Unlock()
		tr.CloseIdleConnections()
	})
	return p
}

// do sends a request with the session's headers; hdr are more headers as
// name, value pairs (a value "" removes the header).
func (p *rawHTTP) do(method, body string, hdr ...string) *http.Response {
	p.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, p.url, rd)
	if err != nil {
		p.t.Fatal(err)
	}
	if method == http.MethodPost {
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
	} else {
		req.Header.Set("Accept", "text/event-stream")
	}
	if p.session != "" {
		req.Header.Set("Mcp-Session-Id", p.session)
	}
	if p.version != "" {
		req.Header.Set("Mcp-Protocol-Version", p.version)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		if hdr[i] == "Host" {
			req.Host = hdr[i+1]
			continue
		}
		if hdr[i+1] == "" {
			req.Header.Del(hdr[i])
		} else {
			req.Header.Set(hdr[i], hdr[i+1])
		}
	}
	resp, err := p.client.Do(req)
	if err != nil {
		p.t.Fatal(err)
	}
	p.mu.Lock()
	p.open = append(p.open, resp)
	p.mu.Unlock()
	return resp
}

// post sends a body and returns the response.
func (p *rawHTTP) post(body string, hdr ...string) *http.Response {
	p.t.Helper()
	return p.do(http.MethodPost, body, hdr...)
}

// initialize starts a session with the given version.
func (p *rawHTTP) initialize(version string) {
	p.t.Helper()
	resp := p.post(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` + version +
		`","capabilities":{"sampling":{},"elicitation":{}},"clientInfo":{"name":"raw","version":"0"}}}`)
	evs := readEvents(p.t, resp)
	if resp.StatusCode != http.StatusOK || len(evs) != 1 || !strings.Contains(evs[0].data, `"protocolVersion":"`+version+`"`) {
		p.t.Fatalf("initialize: %d %+v", resp.StatusCode, evs)
	}
	p.session = resp.Header.Get("Mcp-Session-Id")
	p.version = version
	if resp := p.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`); resp.StatusCode != http.StatusAccepted {
		p.t.Fatalf("initialized: %d", resp.StatusCode)
	}
}

// event is one server-sent event as the tests see it.
type event struct {
	id, name, data string
}

// readEvents reads a response to its end: its events, or its JSON body as
// one event without id.
func readEvents(t *testing.T, resp *http.Response) []event {
	t.Helper()
	defer resp.Body.Close()
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) == 0 {
			return nil
		}
		return []event{{data: string(b)}}
	}
	var evs []event
	r := streamable.NewSSEReader(resp.Body, 1<<20)
	for {
		id, name, data, err := r.Next()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				t.Fatalf("reading events: %v (after %+v)", err, evs)
			}
			return evs
		}
		evs = append(evs, event{id, name, string(data)})
	}
}

// nextEvent reads one event of a stream that stays open.
func nextEvent(t *testing.T, r *streamable.SSEReader) event {
	t.Helper()
	type res struct {
		ev  event
		err error
	}
	ch := make(chan res, 1)
	go func() {
		id, name, data, err := r.Next()
		ch <- res{event{id, name, string(data)}, err}
	}()
	select {
	case x := <-ch:
		if x.err != nil {
			t.Fatalf("reading an event: %v", x.err)
		}
		return x.ev
	case <-time.After(10 * time.Second):
		t.Fatal("no event came")
		return event{}
	}
}

// errorBody decodes a JSON-RPC error response without id.
func errorBody(t *testing.T, resp *http.Response) *codec.Error {
	t.Helper()
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Fatalf("status %d: Content-Type %q, body %s", resp.StatusCode, ct, b)
	}
	var m struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   *codec.Error    `json:"error"`
	}
	if err := json.Unmarshal(b, &m); err != nil || m.JSONRPC != "2.0" || string(m.ID) != "null" || m.Error == nil {
		t.Fatalf("status %d: not a JSON-RPC error without id: %s", resp.StatusCode, b)
	}
	return m.Error
}

// toolServer is a server with the tools the HTTP tests call.
func toolServer(t *testing.T) *mcp.Server {
	t.Helper()
	srv := echoServer(t)
	must(t, srv.AddTool(&mcp.Tool{Name: "test_tool_with_logging"}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		for _, m := range []string{"Tool execution started", "Tool processing data", "Tool execution completed"} {
			if err := req.Log(ctx, mcp.LevelInfo, "tool", m); err != nil {
				return nil, err
			}
		}
		if err := req.Progress(ctx, 100, 100, ""); err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "logged"}}}, nil
	}))
	must(t, srv.AddTool(&mcp.Tool{Name: "test_sampling"}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res, err := req.Session.CreateMessage(ctx, &mcp.CreateMessageParams{MaxTokens: 100,
			Messages: []*mcp.SamplingMessage{{Role: mcp.RoleUser, Content: []mcp.Content{&mcp.TextContent{Text: "Say hi"}}}}})
		if err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "LLM response: " + res.Content[0].(*mcp.TextContent).Text}}}, nil
	}))
	must(t, srv.AddTool(&mcp.Tool{Name: "test_reconnection"}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		req.Log(ctx, mcp.LevelInfo, "tool", "before the stream closes")
		req.CloseSSEStream()
		time.Sleep(50 * time.Millisecond) // the client is away
		req.Log(ctx, mcp.LevelInfo, "tool", "while the client is away")
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "Reconnection test completed"}}}, nil
	}))
	return srv
}

// loggingEvents are the messages test_tool_with_logging sends, at level
// info, with the progress token "t".
var loggingEvents = []string{
	`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","logger":"tool","data":"Tool execution started"}}`,
	`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","logger":"tool","data":"Tool processing data"}}`,
	`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","logger":"tool","data":"Tool execution completed"}}`,
	`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":100,"total":100}}`,
}

// fastRetry is what the HTTP tests announce as the retry delay.
var fastRetry = &streamable.Options{RetryInterval: 20 * time.Millisecond}
