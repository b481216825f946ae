package streamable_test

import (
	"context"
	"encoding/json"
	"errors"
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
)

// serveSSE serves srv's HTTP+SSE endpoint at /sse for the test.
func serveSSE(t *testing.T, srv *mcp.Server) string {
	t.Helper()
	h := streamable.NewSSEHandler(srv, nil)
	mux := http.NewServeMux()
	mux.Handle("/sse", h)
	ts := httptest.NewServer(mux)
	t.Cleanup(func() {
		h.Close()
		ts.Close()
	})
	return ts.URL + "/sse"
}

// waitNoSessions waits for srv to have no session left.
func waitNoSessions(t *testing.T, srv *mcp.Server) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); len(srv.Sessions()) != 0; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the server kept the session")
		}
	}
}

// A client of the default version (2026-07-28) speaks LatestVersion over
// the HTTP+SSE transport, which has no stateless version: by ConnectSSE,
// and by Connect falling back on it.
func TestConnectSSE_mcpwireLegacyEndpoint(t *testing.T) {
	srv := toolServer(t)
	url := serveSSE(t, srv)
	var logs atomic.Int32
	c := mcp.NewClient(nil, &mcp.ClientOptions{
		LoggingMessageHandler: func(context.Context, *mcp.ClientSession, *mcp.LoggingMessageParams) { logs.Add(1) },
		CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{Role: mcp.RoleAssistant, Model: "m", Content: []mcp.Content{&mcp.TextContent{Text: "hi"}}}, nil
		},
	})
	for name, connect := range map[string]func() (*mcp.ClientSession, error){
		"ConnectSSE":  func() (*mcp.ClientSession, error) { return streamable.ConnectSSE(context.Background(), c, url, nil) },
		"ConnectHTTP": func() (*mcp.ClientSession, error) { return streamable.Connect(context.Background(), c, url, nil) }, // POST refused 400: falls back
	} {
		t.Run(name, func(t *testing.T) {
			cs, err := connect()
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			if cs.ProtocolVersion() != mcp.LatestVersion {
				t.Fatalf("version %q", cs.ProtocolVersion())
			}
			res, err := cs.CallTool(ctx, "echo", map[string]string{"message": "over the old transport"})
			if err != nil || res.Content[0].(*mcp.TextContent).Text != "over the old transport" {
				t.Fatalf("%+v, %v", res, err)
			}
			logs.Store(0)
			if _, err := cs.CallTool(ctx, "test_tool_with_logging", nil); err != nil || logs.Load() != 3 {
				t.Fatalf("%v; %d log messages", err, logs.Load())
			}
			res, err = cs.CallTool(ctx, "test_sampling", nil)
			if err != nil || res.Content[0].(*mcp.TextContent).Text != "LLM response: hi" {
				t.Fatalf("%+v, %v", res, err)
			}
			if err := cs.Ping(ctx); err != nil {
				t.Fatal(err)
			}
			cs.Close()
			if err := cs.Wait(); err != nil {
				t.Fatalf("Wait: %v", err)
			}
			waitNoSessions(t, srv)
		})
	}
}

func TestConnectHTTP_noFallbackWhenDisabled(t *testing.T) {
	url := serveSSE(t, echoServer(t))
	_, err := streamable.Connect(context.Background(), mcp.NewClient(nil, nil), url, &streamable.ClientOptions{DisableSSEFallback: true})
	if err == nil || !strings.Contains(err.Error(), "400") {
		t.Fatalf("got %v, want the 400 of the initialize POST", err)
	}
}

// handLegacy is a 2024-11-05 server written by hand: GET /events opens
// the stream and names a relative endpoint with the session in its query;
// POST /messages?session_id=… takes messages (202 "Accepted") and answers
// initialize, ping and tools/call (echo) on the stream, as unnamed events
// and "message" events in turn. POST /events is 405, as a server that
// predates Streamable HTTP answers.
type handLegacy struct {
	t        *testing.T
	endpoint string // what the endpoint event says
	out      chan string
	closed   chan struct{} // closing it ends the stream
	gone     atomic.Bool   // the session is forgotten: POSTs are 404
	hung     atomic.Bool   // pings are taken and never answered

	mu    sync.Mutex
	posts []string // the URLs POSTed to
}

func newHandLegacy(t *testing.T, endpoint string) (*handLegacy, string) {
	l := &handLegacy{t: t, endpoint: endpoint, out: make(chan string, 16), closed: make(chan struct{})}
	ts := httptest.NewServer(l)
	t.Cleanup(ts.Close)
	return l, ts.URL
}

func (l *handLegacy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	l.mu.Lock()
	if r.Method == http.MethodPost {
		l.posts = append(l.posts, r.URL.RequestURI())
	}
	l.mu.Unlock()
	switch {
	case r.URL.Path == "/events" && r.Method == http.MethodGet:
		l.stream(w, r)
	case r.URL.Path == "/messages" && r.Method == http.MethodPost:
		if r.URL.Query().Get("session_id") != "abc" || l.gone.Load() {
			http.Error(w, "Could not find session", http.StatusNotFound)
			return
		}
		body, _ := io.ReadAll(r.Body)
		w.WriteHeader(http.StatusAccepted)
		io.WriteString(w, "Accepted")
		l.answer(body)
	default:
		http.Error(w, "Method Not Allowed", http.StatusMethodNotAllowed)
	}
}

func (l *handLegacy) stream(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/event-stream")
	io.WriteString(w, ": hello\n\nevent: endpoint\ndata: "+l.endpoint+"\n\n")
	w.(http.Flusher).Flush()
	for n := 0; ; n++ {
		select {
		case m := <-l.out:
			if n%2 == 1 {
				io.WriteString(w, "event: message\n")
			}
			io.WriteString(w, "data: "+m+"\n\n")
			w.(http.Flusher).Flush()
		case <-l.closed:
			return
		case <-r.Context().Done():
			return
		}
	}
}

func (l *handLegacy) answer(body []byte) {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Arguments struct {
				Message string `json:"message"`
			} `json:"arguments"`
		} `json:"params"`
	}
	if json.Unmarshal(body, &m) != nil || m.ID == nil || m.Method == "" || m.Method == "ping" && l.hung.Load() {
		return
	}
	result := `{}`
	switch m.Method {
	case "initialize":
		result = `{"protocolVersion":"2024-11-05","capabilities":{"tools":{}},"serverInfo":{"name":"hand","version":"0"}}`
	case "tools/call":
		text, _ := json.Marshal(m.Params.Arguments.Message)
		result = `{"content":[{"type":"text","text":` + string(text) + `}]}`
	}
	l.out <- `{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":` + result + `}`
}

func TestConnectHTTP_fallsBackToAHandWrittenLegacyServer(t *testing.T) {
	l, url := newHandLegacy(t, "messages?session_id=abc")
	cs, err := streamable.Connect(context.Background(), mcp.NewClient(nil, nil), url+"/events", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if cs.ProtocolVersion() != "2024-11-05" || cs.InitializeResult().ServerInfo.Name != "hand" {
		t.Fatalf("%+v", cs.InitializeResult())
	}
	for _, msg := range []string{"one", "two", "three"} { // unnamed and "message" events
		res, err := cs.CallTool(context.Background(), "echo", map[string]string{"message": msg})
		if err != nil || res.Content[0].(*mcp.TextContent).Text != msg {
			t.Fatalf("%+v, %v", res, err)
		}
	}
	l.mu.Lock()
	posts := l.posts
	l.mu.Unlock()
	// The default client tries server/discover, then initialize, over
	// Streamable HTTP; both are refused, and the legacy transport runs
	// initialize again.
	if len(posts) < 2 || posts[0] != "/events" || posts[1] != "/events" {
		t.Fatalf("the Streamable HTTP attempts went to %q", posts)
	}
	for _, p := range posts[2:] {
		if p != "/messages?session_id=abc" {
			t.Fatalf("a message went to %q", p)
		}
	}

	close(l.closed) // the server ends the stream: the session ends
	if err := waitErr(t, cs.Wait); err != nil {
		t.Fatalf("Wait: %v", err)
	}
}

func TestConnectSSE_forgottenSession(t *testing.T) {
	l, url := newHandLegacy(t, "/messages?session_id=abc")
	cs, err := streamable.ConnectSSE(context.Background(), mcp.NewClient(nil, nil), url+"/events", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	l.gone.Store(true)
	if err := cs.Ping(context.Background()); err == nil {
		t.Fatal("a ping to a forgotten session succeeded")
	}
	if err := waitErr(t, cs.Wait); !errors.Is(err, streamable.ErrSessionNotFound) {
		t.Fatalf("Wait: %v, want ErrSessionNotFound", err)
	}
}

func TestConnectSSE_refusesABadEndpointEvent(t *testing.T) {
	_, other := newHandLegacy(t, "")
	for _, tc := range []struct {
		endpoint string
		want     error
	}{
		{other + "/messages?session_id=abc", streamable.ErrEndpointOrigin},
		{"http://evil.example.com/messages?session_id=abc", streamable.ErrEndpointOrigin},
	} {
		_, url := newHandLegacy(t, tc.endpoint)
		if _, err := streamable.ConnectSSE(context.Background(), mcp.NewClient(nil, nil), url+"/events", nil); !errors.Is(err, tc.want) {
			t.Fatalf("endpoint %q: %v, want %v", tc.endpoint, err, tc.want)
		}
	}
	// A stream that is no SSE endpoint (a Streamable HTTP server's GET
	// without a session) is not taken for one.
	ts, _ := serveHTTP(t, echoServer(t), nil)
	if _, err := streamable.ConnectSSE(context.Background(), mcp.NewClient(nil, nil), ts.URL, nil); err == nil {
		t.Fatal("ConnectSSE to a Streamable HTTP endpoint succeeded")
	}
}

func TestConnectSSE_contextBoundsTheEndpointEvent(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.(http.Flusher).Flush()
		<-r.Context().Done() // never an endpoint event
	}))
	defer ts.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := streamable.ConnectSSE(ctx, mcp.NewClient(nil, nil), ts.URL, nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("got %v, want the context's deadline", err)
	}
}

func TestKeepAlive_clientOverSSE(t *testing.T) {
	l, url := newHandLegacy(t, "/messages?session_id=abc")
	c := mcp.NewClient(nil, &mcp.ClientOptions{KeepAlive: mcp.KeepAlive{Interval: 10 * time.Millisecond, Timeout: 50 * time.Millisecond}})
	cs, err := streamable.ConnectSSE(context.Background(), c, url+"/events", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	pings := func() (n int) {
		l.mu.Lock()
		defer l.mu.Unlock()
		return len(l.posts)
	}
	for deadline := time.Now().Add(10 * time.Second); pings() < 6; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d POSTs reached the server", pings())
		}
	}
	l.hung.Store(true)
	if err := waitErr(t, cs.Wait); !errors.Is(err, mcp.ErrPingTimeout) {
		t.Fatalf("Wait: %v, want ErrPingTimeout", err)
	}
}

func TestKeepAlive_serverOverSSE(t *testing.T) {
	srv := mcp.NewServer(nil, &mcp.ServerOptions{KeepAlive: mcp.KeepAlive{Interval: 10 * time.Millisecond, Timeout: 50 * time.Millisecond}})
	url := serveSSE(t, srv)
	p := newRawHTTP(t, url)
	get := p.do(http.MethodGet, "")
	r := streamable.NewSSEReader(get.Body, 1<<20)
	post := newRawHTTP(t, strings.TrimSuffix(url, "/sse")+nextEvent(t, r).data)
	send := func(body string) {
		t.Helper()
		if resp := post.post(body); resp.StatusCode != http.StatusAccepted {
			t.Fatalf("POST %s: %d", body, resp.StatusCode)
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"old","version":"0"}}}`)
	nextEvent(t, r) // its answer
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	for range 3 {
		var m wireMsg
		if ev := nextEvent(t, r); json.Unmarshal([]byte(ev.data), &m) != nil || m.Method != "ping" {
			t.Fatalf("not a ping: %+v", ev)
		}
		send(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{}}`)
	}
	// Silent from now on: the session ends, and its stream.
	for {
		if _, _, _, err := r.Next(); err != nil {
			break
		}
	}
	waitNoSessions(t, srv)
}
