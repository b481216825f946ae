package redisstore_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/internal/redistest"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/mcp/streamable"
	"github.com/mcpwire/mcpwire/redisstore"
)

// instance is one instance of a server: its store, an mcp.Server, and a
// Streamable HTTP handler on an httptest server.
type instance struct {
	st  *redisstore.Store
	rt  *roundTrips
	srv *mcp.Server
	h   *streamable.Handler
	ts  *httptest.Server
	url string
}

func startInstance(t *testing.T, redis *redistest.Server, name string) *instance {
	t.Helper()
	in := &instance{st: storeOn(t, redis, name), rt: &roundTrips{}}
	in.st.Client().AddHook(in.rt)
	in.srv = mcp.NewServer(&mcp.Implementation{Name: "shared", Version: "1"}, nil)
	type echoIn struct {
		Message string `json:"message"`
	}
	must(t, mcp.AddTool(in.srv, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, a echoIn) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: a.Message}}}, nil, nil
	}))
	type logIn struct {
		N int `json:"n"`
	}
	// log sends a log message outside of the request (no request's
	// context): it goes to the session's standalone stream.
	must(t, mcp.AddTool(in.srv, &mcp.Tool{Name: "log"}, func(_ context.Context, req *mcp.CallToolRequest, a logIn) (*mcp.CallToolResult, any, error) {
		err := req.Session.Log(context.Background(), &mcp.LoggingMessageParams{Level: mcp.LevelInfo, Data: a.N})
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "logged"}}}, nil, err
	}))
	in.h = streamable.NewHandler(in.srv, &streamable.Options{
		SessionStore: in.st.SessionStore(),
		EventStore:   in.st.EventStore(0, 0),
	})
	in.ts = httptest.NewServer(in.h)
	in.url = in.ts.URL
	t.Cleanup(func() { in.kill() })
	return in
}

// kill ends the instance hard: its connections cut, no graceful
// shutdown; what the store holds stays.
func (in *instance) kill() {
	in.ts.CloseClientConnections()
	in.ts.Close()
	in.h.Close()
	http.DefaultTransport.(*http.Transport).CloseIdleConnections()
}

// logged returns the n of a notifications/message event, or -1.
func logged(t *testing.T, e sseEvent) int {
	t.Helper()
	var m struct {
		Method string `json:"method"`
		Params struct {
			Data int `json:"data"`
		} `json:"params"`
	}
	if err := json.Unmarshal([]byte(e.data), &m); err != nil {
		t.Fatalf("event %q: %v", e.data, err)
	}
	if m.Method != "notifications/message" {
		return -1
	}
	return m.Params.Data
}

func TestSessions_sharedByInstancesEndToEnd(t *testing.T) {
	redis := redistest.Start(t)
	a, b, c := startInstance(t, redis, "a"), startInstance(t, redis, "b"), startInstance(t, redis, "c")

	sid := open(t, a.url)
	callTool(t, b.url, sid, "echo", `{"message":"hi"}`) // b takes the session over

	g := get(t, a.url, sid, "")
	prim := g.next(t)
	if prim.id == "" || prim.data != "" {
		t.Fatalf("priming event: %+v", prim)
	}
	stream := prim.id[:strings.LastIndexByte(prim.id, '.')]
	last := prim.seq()
	// expect reads the next event: the store's next one, a log of n.
	expect := func(g *getStream, n int) sseEvent {
		t.Helper()
		e := g.next(t)
		if !strings.HasPrefix(e.id, stream+".") || e.seq() != last+1 {
			t.Fatalf("event %q after %d: lost or repeated events", e.id, last)
		}
		last = e.seq()
		if got := logged(t, e); got != n {
			t.Fatalf("event %s: %s, want the log of %d", e.id, e.data, n)
		}
		return e
	}
	for n := 1; n <= 3; n++ { // produced by b's copy, delivered by a
		callTool(t, b.url, sid, "log", `{"n":`+itoa(n)+`}`)
		expect(g, n)
	}

	mark := b.rt.n.Load()
	callTool(t, b.url, sid, "echo", `{"message":"hi"}`)
	if n, _ := b.rt.since(mark); n != 0 {
		t.Errorf("a call on a shared session cost %d round trips (touch throttled: want 0)", n)
	}
	mark = b.rt.n.Load()
	callTool(t, b.url, sid, "log", `{"n":4}`)
	n, _ := b.rt.since(mark)
	t.Logf("round trips: a session call 0, a notification published %d", n)
	if n != 1 {
		t.Errorf("a notification published cost %d round trips, want 1", n)
	}
	expect(g, 4)

	// A list change on every instance: both copies send list_changed, one
	// reaches the client.
	must(t, a.srv.AddTool(&mcp.Tool{Name: "extra", InputSchema: json.RawMessage(`{"type":"object"}`)}, noTool))
	e := g.next(t)
	if !strings.Contains(e.data, "notifications/tools/list_changed") || e.seq() != last+1 {
		t.Fatalf("want list_changed, got %+v", e)
	}
	last = e.seq()
	mark = b.rt.n.Load()
	must(t, b.srv.AddTool(&mcp.Tool{Name: "extra", InputSchema: json.RawMessage(`{"type":"object"}`)}, noTool))
	eventually(t, func() error { // b's copy tried to publish it
		if b.rt.n.Load() == mark {
			return context.DeadlineExceeded
		}
		return nil
	})
	callTool(t, b.url, sid, "log", `{"n":5}`)
	expect(g, 5) // not the repeated list_changed

	// a dies; what b publishes meanwhile is kept; the client resumes on b.
	a.kill()
	g.ended(t)
	callTool(t, b.url, sid, "log", `{"n":6}`)
	callTool(t, b.url, sid, "log", `{"n":7}`)
	mark = b.rt.n.Load()
	g2 := get(t, b.url, sid, stream+"."+itoa(int(last)))
	expect(g2, 6)
	expect(g2, 7)
	n, _ = b.rt.since(mark)
	t.Logf("round trips: a GET resumed %d (on the instance's pool; SUBSCRIBE on the bus's connection not counted)", n)
	callTool(t, b.url, sid, "log", `{"n":8}`) // live again
	expect(g2, 8)
	callTool(t, c.url, sid, "log", `{"n":9}`) // c takes over, publishes; b delivers
	expect(g2, 9)

	// DELETE on b ends the copy on c at once (its next touch would be
	// minutes away), and the GET on b.
	if c.h.Len() != 1 {
		t.Fatalf("c holds %d sessions", c.h.Len())
	}
	req, _ := http.NewRequest(http.MethodDelete, b.url, nil)
	req.Header.Set("Mcp-Session-Id", sid)
	req.Header.Set("Mcp-Protocol-Version", testVersion)
	resp, err := http.DefaultClient.Do(req)
	must(t, err)
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE: %d", resp.StatusCode)
	}
	g2.ended(t)
	eventually(t, func() error {
		if c.h.Len() != 0 {
			return context.DeadlineExceeded
		}
		return nil
	})
	if resp, _ := call(t, c.url, sid, `{"jsonrpc":"2.0","id":3,"method":"ping"}`); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("a deleted session on c: %d", resp.StatusCode)
	}
}

func TestSessions_redisDownAndBackEndToEnd(t *testing.T) {
	redis := redistest.Start(t)
	b, c := startInstance(t, redis, "b"), startInstance(t, redis, "c")
	sid := open(t, b.url)
	g := get(t, b.url, sid, "")
	prim := g.next(t)

	redis.Kill()
	within := func(what string, f func()) {
		t.Helper()
		start := time.Now()
		f()
		if d := time.Since(start); d > 3*time.Second {
			t.Errorf("%s with Redis down took %v", what, d)
		}
	}
	within("a call on a live session", func() { callTool(t, b.url, sid, "echo", `{"message":"hi"}`) })
	within("an event published", func() {
		callTool(t, b.url, sid, "log", `{"n":1}`)
		if e := g.next(t); e.id != "" || logged(t, e) != 1 {
			t.Errorf("an event not published: %+v, want it live with no id", e)
		}
	})
	within("a new session", func() {
		resp, body := call(t, b.url, "", initBody)
		if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" ||
			!strings.Contains(string(body), `"code":-32000`) || !strings.Contains(string(body), "session store unavailable; retry") {
			t.Errorf("a new session: %d %q %s", resp.StatusCode, resp.Header.Get("Retry-After"), body)
		}
	})
	within("a session to take over", func() {
		resp, body := call(t, c.url, sid, `{"jsonrpc":"2.0","id":3,"method":"ping"}`)
		if resp.StatusCode != http.StatusInternalServerError || strings.Contains(string(body), "127.0.0.1") {
			t.Errorf("a session to take over: %d %s", resp.StatusCode, body)
		}
	})
	within("a resumption", func() {
		resp, cancel := getResp(t, b.url, sid, prim.id)
		defer cancel()
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusInternalServerError {
			t.Errorf("a resumption: %d", resp.StatusCode)
		}
	})

	redis.Restart() // empty: what it held is lost
	var sid2 string
	eventually(t, func() error {
		resp, _ := call(t, b.url, "", initBody)
		if resp.StatusCode != http.StatusOK {
			return context.DeadlineExceeded
		}
		sid2 = resp.Header.Get("Mcp-Session-Id")
		return nil
	})
	callTool(t, c.url, sid2, "echo", `{"message":"hi"}`)
	g2 := get(t, c.url, sid2, "")
	g2.next(t) // priming
	callTool(t, b.url, sid2, "log", `{"n":2}`)
	if e := g2.next(t); e.id == "" || logged(t, e) != 2 {
		t.Fatalf("after the restart: %+v", e)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func noTool(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return &mcp.CallToolResult{}, nil
}
