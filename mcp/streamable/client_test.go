package streamable_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/mcp/streamable"
	"github.com/mcpwire/mcpwire/transport"
)

// logRecorder collects the log messages a client receives.
type logRecorder struct {
	mu   sync.Mutex
	msgs []string
}

func (l *logRecorder) handler(_ context.Context, _ *mcp.ClientSession, p *mcp.LoggingMessageParams) {
	l.mu.Lock()
	l.msgs = append(l.msgs, fmt.Sprint(p.Data))
	l.mu.Unlock()
}

func (l *logRecorder) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.msgs, "|")
}

// A tool closes its stream mid-call: the client resumes it and gets what
// was sent meanwhile, then the result.
//
// Resumed streams, the GET stream and sessions are of the versions
// with initialize: the client is pinned to one (2026-07-28 has none).
func TestClientHTTP_resumesAStreamTheServerClosed(t *testing.T) {
	onBothServers(t, func(t *testing.T, serveHTTP serveFunc) {
		ts, _ := serveHTTP(t, toolServer(t), fastRetry)
		var logs logRecorder
		cs := connectHTTP(t, ts.URL, mcp.NewClient(nil, &mcp.ClientOptions{ProtocolVersion: mcp.LatestVersion, LoggingMessageHandler: logs.handler}))
		res, err := cs.CallTool(context.Background(), "test_reconnection", nil)
		if err != nil || res.Content[0].(*mcp.TextContent).Text != "Reconnection test completed" {
			t.Fatalf("%+v, %v", res, err)
		}
		if got := logs.String(); got != "before the stream closes|while the client is away" {
			t.Fatalf("logs %q", got)
		}
	})
}

// breakingTransport breaks the connection of the first response to a
// request of method whose body contains match right after its first
// event, as a network failure would.
type breakingTransport struct {
	base   http.RoundTripper
	method string
	match  string
	done   atomic.Bool
}

func (b *breakingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		body, _ = io.ReadAll(req.Body)
		req.Body = io.NopCloser(bytes.NewReader(body))
	}
	resp, err := b.base.RoundTrip(req)
	if err != nil || req.Method != b.method || !bytes.Contains(body, []byte(b.match)) || !b.done.CompareAndSwap(false, true) {
		return resp, err
	}
	resp.Body = &breakAfterEvent{rc: resp.Body}
	return resp, nil
}

// breakAfterEvent passes the first event through, then fails.
type breakAfterEvent struct {
	rc   io.ReadCloser
	seen []byte
}

func (r *breakAfterEvent) Read(p []byte) (int, error) {
	if i := bytes.Index(r.seen, []byte("\n\n")); i >= 0 {
		return 0, io.ErrUnexpectedEOF
	}
	n, err := r.rc.Read(p[:1]) // byte by byte: stop right after the event
	r.seen = append(r.seen, p[:n]...)
	return n, err
}

func (r *breakAfterEvent) Close() error { return r.rc.Close() }

// Resumed streams, the GET stream and sessions are of the versions
// with initialize: the client is pinned to one (2026-07-28 has none).
func TestClientHTTP_resumesABrokenConnection(t *testing.T) {
	srv := mcp.NewServer(nil, nil)
	release := make(chan struct{})
	must(t, srv.AddTool(&mcp.Tool{Name: "slow"}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		req.Log(ctx, mcp.LevelInfo, "", "before the break") // the answer becomes an event stream
		<-release
		req.Log(ctx, mcp.LevelInfo, "", "after the break")
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
	}))
	ts, _ := serveHTTP(t, srv, fastRetry)
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	bt := &breakingTransport{base: tr, method: http.MethodPost, match: `"tools/call"`}
	var logs logRecorder
	c := mcp.NewClient(nil, &mcp.ClientOptions{ProtocolVersion: mcp.LatestVersion, LoggingMessageHandler: logs.handler})
	cs, err := streamable.Connect(context.Background(), c, ts.URL, &streamable.ClientOptions{HTTPClientOptions: transport.HTTPClientOptions{Client: &http.Client{Transport: bt}}})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	go func() {
		for !bt.done.Load() {
			time.Sleep(time.Millisecond)
		}
		time.Sleep(50 * time.Millisecond) // the break happens first
		close(release)
	}()
	res, err := cs.CallTool(context.Background(), "slow", nil)
	if err != nil || res.Content[0].(*mcp.TextContent).Text != "done" {
		t.Fatalf("%+v, %v", res, err)
	}
	if logs.String() != "before the break|after the break" {
		t.Fatalf("logs %q", logs.String())
	}
}

// Resumed streams, the GET stream and sessions are of the versions
// with initialize: the client is pinned to one (2026-07-28 has none).
func TestClientHTTP_resumesABrokenGetStream(t *testing.T) {
	srv := mcp.NewServer(nil, &mcp.ServerOptions{Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolsCapability{ListChanged: true}}})
	ts, _ := serveHTTP(t, srv, fastRetry)
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	bt := &breakingTransport{base: tr, method: http.MethodGet}
	changed := make(chan struct{}, 4)
	c := mcp.NewClient(nil, &mcp.ClientOptions{ProtocolVersion: mcp.LatestVersion, ToolListChangedHandler: func(context.Context, *mcp.ClientSession) { changed <- struct{}{} }})
	cs, err := streamable.Connect(context.Background(), c, ts.URL, &streamable.ClientOptions{HTTPClientOptions: transport.HTTPClientOptions{Client: &http.Client{Transport: bt}}})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	deadline := time.Now().Add(10 * time.Second)
	for !bt.done.Load() {
		if time.Now().After(deadline) {
			t.Fatal("the client opened no GET stream")
		}
		time.Sleep(time.Millisecond)
	}
	must(t, addEcho(srv)) // sent while the stream is broken, or after it resumed
	select {
	case <-changed:
	case <-time.After(10 * time.Second):
		t.Fatal("the list_changed sent on the GET stream never came")
	}
}

func TestHTTPHandler_shutdownLetsRunningCallsFinish(t *testing.T) {
	srv := mcp.NewServer(nil, nil)
	started := make(chan struct{})
	must(t, srv.AddTool(&mcp.Tool{Name: "slow"}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		close(started)
		time.Sleep(100 * time.Millisecond)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "finished"}}}, nil
	}))
	ts, h := serveHTTP(t, srv, fastRetry)
	cs := connectHTTP(t, ts.URL, mcp.NewClient(nil, nil))
	got := make(chan string, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), "slow", nil)
		if err != nil {
			got <- err.Error()
			return
		}
		got <- res.Content[0].(*mcp.TextContent).Text
	}()
	<-started
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	must(t, h.Shutdown(ctx))
	if s := <-got; s != "finished" {
		t.Fatalf("the call in flight got %q", s)
	}
	if n := len(srv.Sessions()); n != 0 {
		t.Fatalf("%d sessions after Shutdown", n)
	}
}

// Resumed streams, the GET stream and sessions are of the versions
// with initialize: the client is pinned to one (2026-07-28 has none).
func TestClientHTTP_serverInJSONModeSendsRequestsOnTheGetStream(t *testing.T) {
	ts, _ := serveHTTP(t, toolServer(t), &streamable.Options{JSONResponse: true})
	var logs logRecorder
	cs := connectHTTP(t, ts.URL, mcp.NewClient(nil, &mcp.ClientOptions{ProtocolVersion: mcp.LatestVersion,
		LoggingMessageHandler: logs.handler,
		CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{Role: mcp.RoleAssistant, Model: "m", Content: []mcp.Content{&mcp.TextContent{Text: "from GET"}}}, nil
		},
	}))
	ctx := context.Background()
	res, err := cs.CallTool(ctx, "test_sampling", nil)
	if err != nil || res.Content[0].(*mcp.TextContent).Text != "LLM response: from GET" {
		t.Fatalf("%+v, %v", res, err)
	}
	if _, err := cs.CallTool(ctx, "test_tool_with_logging", nil); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for logs.String() != "Tool execution started|Tool processing data|Tool execution completed" {
		if time.Now().After(deadline) {
			t.Fatalf("logs %q", logs.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Resumed streams, the GET stream and sessions are of the versions
// with initialize: the client is pinned to one (2026-07-28 has none).
func TestClientHTTP_aSessionTheServerEndedFailsTheClient(t *testing.T) {
	srv := echoServer(t)
	ts, _ := serveHTTP(t, srv, fastRetry)
	cs := connectHTTP(t, ts.URL, mcp.NewClient(nil, stateful))
	ctx := context.Background()
	must(t, cs.Ping(ctx))
	for _, ss := range srv.Sessions() {
		ss.Close() // the application ends it: it is gone everywhere
	}
	if err := cs.Ping(ctx); err == nil {
		t.Fatal("a call on an ended session succeeded")
	}
	if err := waitErr(t, cs.Wait); !errors.Is(err, streamable.ErrSessionNotFound) {
		t.Fatalf("the session ended with %v", err)
	}
}

// Resumed streams, the GET stream and sessions are of the versions
// with initialize: the client is pinned to one (2026-07-28 has none).
func TestClientHTTP_closeDeletesTheSession(t *testing.T) {
	srv := echoServer(t)
	h := streamable.NewHandler(srv, fastRetry)
	var seen sync.Map
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen.Store(r.Method, r.Header.Get("Authorization"))
		h.ServeHTTP(w, r)
	}))
	defer ts.Close()
	defer h.Close()
	cs, err := streamable.Connect(context.Background(), mcp.NewClient(nil, stateful), ts.URL,
		&streamable.ClientOptions{HTTPClientOptions: transport.HTTPClientOptions{Header: http.Header{"Authorization": {"Bearer t"}}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(srv.Sessions()) != 1 {
		t.Fatalf("%d sessions", len(srv.Sessions()))
	}
	deadline := time.Now().Add(10 * time.Second)
	for _, ok := seen.Load(http.MethodGet); !ok; _, ok = seen.Load(http.MethodGet) {
		if time.Now().After(deadline) {
			t.Fatal("the client opened no GET stream")
		}
		time.Sleep(time.Millisecond)
	}
	must(t, cs.Close())
	for len(srv.Sessions()) != 0 {
		if time.Now().After(deadline) {
			t.Fatal("the server kept the session")
		}
		time.Sleep(5 * time.Millisecond)
	}
	for _, m := range []string{http.MethodPost, http.MethodGet, http.MethodDelete} {
		if v, _ := seen.Load(m); v != "Bearer t" {
			t.Fatalf("%s carried Authorization %v", m, v)
		}
	}
}

func TestClientHTTP_manyConcurrentCalls(t *testing.T) {
	ts, _ := serveHTTP(t, echoServer(t), fastRetry)
	cs := connectHTTP(t, ts.URL, mcp.NewClient(nil, nil))
	echoConcurrently(t, cs, 8, 10)
}

// echoConcurrently has callers goroutines call echo calls times each on
// cs, every answer checked.
func echoConcurrently(t *testing.T, cs *mcp.ClientSession, callers, calls int) {
	var wg sync.WaitGroup
	for g := range callers {
		wg.Go(func() {
			for i := range calls {
				msg := fmt.Sprintf("%d-%d", g, i)
				res, err := cs.CallTool(context.Background(), "echo", map[string]string{"message": msg})
				if err != nil || res.Content[0].(*mcp.TextContent).Text != msg {
					t.Errorf("%s: %+v, %v", msg, res, err)
					return
				}
			}
		})
	}
	wg.Wait()
}

func TestClientHTTP_everyListAndCompletion(t *testing.T) {
	srv := mcp.NewServer(nil, &mcp.ServerOptions{
		PageSize: 1,
		CompletionHandler: func(_ context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
			return &mcp.CompleteResult{Completion: mcp.CompletionValues{Values: []string{req.Params.Argument.Value + "1"}}}, nil
		},
	})
	for _, name := range []string{"a", "b"} {
		must(t, srv.AddPrompt(&mcp.Prompt{Name: name}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{}, nil
		}))
	}
	ts, _ := serveHTTP(t, srv, fastRetry)
	cs := connectHTTP(t, ts.URL, mcp.NewClient(nil, nil))
	ctx := context.Background()
	var names []string
	for p, err := range cs.Prompts(ctx) {
		must(t, err)
		names = append(names, p.Name)
	}
	if strings.Join(names, ",") != "a,b" {
		t.Fatalf("prompts %v", names)
	}
	res, err := cs.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteRef{Type: mcp.RefPrompt, Name: "a"}, Argument: mcp.CompleteArgument{Name: "x", Value: "v"}})
	if err != nil || len(res.Completion.Values) != 1 || res.Completion.Values[0] != "v1" {
		t.Fatalf("%+v, %v", res, err)
	}
}
