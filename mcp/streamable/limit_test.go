package streamable_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/mcp/streamable"
	"github.com/mcpwire/mcpwire/middleware"
)

const initializeBody = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`

// refusedSession checks that resp refuses a new session past limit (max):
// 503, Retry-After, and a -32000 whose data names the limit.
func refusedSession(t *testing.T, resp *http.Response, limit string, maxN int) {
	t.Helper()
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") != "1" {
		t.Fatalf("status %d, Retry-After %q", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	if resp.Header.Get("Mcp-Session-Id") != "" {
		t.Fatalf("a refused session has an id: %q", resp.Header.Get("Mcp-Session-Id"))
	}
	e := errorBody(t, resp)
	var data struct {
		Limit        string `json:"limit"`
		Max          int    `json:"max"`
		RetryAfterMs int    `json:"retryAfterMs"`
	}
	raw, _ := json.Marshal(e.Data)
	if err := json.Unmarshal(raw, &data); err != nil {
		t.Fatal(err)
	}
	if e.Code != codec.CodeOverloaded || !strings.Contains(e.Message, limit) ||
		data.Limit != limit || data.Max != maxN || data.RetryAfterMs != 1000 {
		t.Fatalf("refusal %+v, data %s", e, raw)
	}
}

// openSession initializes a session on p (Streamable HTTP), failing the
// test unless it is accepted.
func openSession(t *testing.T, p *rawHTTP) {
	t.Helper()
	p.session = ""
	p.initialize(mcp.LatestVersion)
}

// stillServes checks that p's session answers tools/list.
func stillServes(t *testing.T, p *rawHTTP) {
	t.Helper()
	evs := readEvents(t, p.post(`{"jsonrpc":"2.0","id":7,"method":"tools/list"}`))
	if len(evs) == 0 || !strings.Contains(evs[len(evs)-1].data, `"name":"echo"`) {
		t.Fatalf("session %s: %+v", p.session, evs)
	}
}

func TestHTTP_sessionsPastMaxSessionsAreRefused(t *testing.T) {
	onBothServers(t, func(t *testing.T, serveHTTP serveFunc) {
		ts, _ := serveHTTP(t, echoServer(t), &streamable.Options{MaxSessions: 3, MaxSessionsPerPrincipal: -1})
		var open []*rawHTTP
		for range 3 {
			p := newRawHTTP(t, ts.URL)
			openSession(t, p)
			open = append(open, p)
		}
		refusedSession(t, newRawHTTP(t, ts.URL).post(initializeBody), "maxSessions", 3)
		for _, p := range open { // the first three are unaffected
			stillServes(t, p)
		}
		// A deleted session frees its place.
		if resp := open[0].do(http.MethodDelete, ""); resp.StatusCode != http.StatusNoContent {
			t.Fatalf("DELETE: %d", resp.StatusCode)
		}
		openSession(t, newRawHTTP(t, ts.URL))
		refusedSession(t, newRawHTTP(t, ts.URL).post(initializeBody), "maxSessions", 3)
		// A refused initialize took no place: its failures are not counted.
		for _, p := range open[1:] {
			stillServes(t, p)
		}
	})
}

// dialFrom makes p's requests come from the loopback address ip.
func dialFrom(p *rawHTTP, ip string) {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	p.client.Transport = &http.Transport{DialContext: d.DialContext}
}

func TestHTTP_sessionsPerPeerAreBounded(t *testing.T) {
	onBothServers(t, func(t *testing.T, serveHTTP serveFunc) {
		ts, _ := serveHTTP(t, echoServer(t), &streamable.Options{MaxSessionsPerPrincipal: 2})
		var a []*rawHTTP
		for range 2 {
			p := newRawHTTP(t, ts.URL)
			dialFrom(p, "127.0.0.1")
			openSession(t, p)
			a = append(a, p)
		}
		p := newRawHTTP(t, ts.URL)
		dialFrom(p, "127.0.0.1")
		refusedSession(t, p.post(initializeBody), "maxSessionsPerPrincipal", 2)
		b := newRawHTTP(t, ts.URL) // another peer has places of its own
		dialFrom(b, "127.0.0.2")
		openSession(t, b)
		stillServes(t, b)
		for _, p := range a {
			stillServes(t, p)
		}
	})
}

func TestHTTP_sessionsPerAuthenticatedPrincipalAreBounded(t *testing.T) {
	h := streamable.NewHandler(echoServer(t), &streamable.Options{MaxSessionsPerPrincipal: 1})
	authn := middleware.AuthenticatorFunc(func(_ context.Context, cred string) (any, error) {
		if who, ok := strings.CutPrefix(cred, "Bearer "); ok {
			return who, nil
		}
		return nil, middleware.ErrNoCredentials
	})
	ts := httptest.NewServer(middleware.HTTPAuth(authn, h))
	t.Cleanup(func() {
		h.Close()
		ts.Close()
	})
	alice := newRawHTTP(t, ts.URL)
	if resp := alice.post(initializeBody, "Authorization", "Bearer alice"); resp.StatusCode != http.StatusOK {
		t.Fatalf("alice: %d", resp.StatusCode)
	} else {
		resp.Body.Close()
	}
	// From the same address, bob is another principal; alice has no
	// place left.
	if resp := newRawHTTP(t, ts.URL).post(initializeBody, "Authorization", "Bearer bob"); resp.StatusCode != http.StatusOK {
		t.Fatalf("bob: %d", resp.StatusCode)
	} else {
		resp.Body.Close()
	}
	refusedSession(t, newRawHTTP(t, ts.URL).post(initializeBody, "Authorization", "Bearer alice"), "maxSessionsPerPrincipal", 1)
}

// awaitFreePlace initializes a session at url every poll until one is
// accepted, each refused one refused for maxSessions 1; it fails the test
// with why if none is within 10s.
func awaitFreePlace(t *testing.T, url string, poll time.Duration, why string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp := newRawHTTP(t, url).post(initializeBody)
		if resp.StatusCode == http.StatusOK {
			resp.Body.Close()
			return
		}
		refusedSession(t, resp, "maxSessions", 1)
		if time.Now().After(deadline) {
			t.Fatal(why)
		}
		time.Sleep(poll)
	}
}

func TestHTTP_expiredSessionFreesItsPlace(t *testing.T) {
	ts, _ := serveHTTP(t, echoServer(t), &streamable.Options{MaxSessions: 1, SessionTimeout: 100 * time.Millisecond})
	p := newRawHTTP(t, ts.URL)
	openSession(t, p)
	awaitFreePlace(t, ts.URL, 50*time.Millisecond, "the idle session never expired")
	if resp := p.post(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("the expired session: %d", resp.StatusCode)
	} else {
		errorBody(t, resp)
	}
}

// serveBoth serves srv over Streamable HTTP at /mcp and HTTP+SSE at /sse,
// both with opts.
func serveBoth(t *testing.T, srv *mcp.Server, opts *streamable.Options) *httptest.Server {
	t.Helper()
	h := streamable.NewHandler(srv, opts)
	l := streamable.NewSSEHandler(srv, opts)
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	mux.Handle("/sse", l)
	ts := httptest.NewServer(mux)
	t.Cleanup(func() {
		h.Close()
		l.Close()
		ts.Close()
	})
	return ts
}

// openLegacy opens an HTTP+SSE session: its event stream, past the
// endpoint event, and a rawHTTP posting to it.
func openLegacy(t *testing.T, url string) (*http.Response, *streamable.SSEReader, *rawHTTP) {
	t.Helper()
	get := newRawHTTP(t, url+"/sse").do(http.MethodGet, "")
	if get.StatusCode != http.StatusOK {
		t.Fatalf("GET /sse: %d", get.StatusCode)
	}
	r := streamable.NewSSEReader(get.Body, 1<<20)
	ep := nextEvent(t, r)
	if ep.name != "endpoint" {
		t.Fatalf("first event %+v", ep)
	}
	return get, r, newRawHTTP(t, url+ep.data)
}

// The sessions of both HTTP handlers of a server count together.
func TestSSEHandler_sessionsCountWithStreamableHTTPOnes(t *testing.T) {
	ts := serveBoth(t, echoServer(t), &streamable.Options{MaxSessions: 1})
	get, _, _ := openLegacy(t, ts.URL)
	refusedSession(t, newRawHTTP(t, ts.URL+"/mcp").post(initializeBody), "maxSessions", 1)
	refusedSession(t, newRawHTTP(t, ts.URL+"/sse").do(http.MethodGet, ""), "maxSessions", 1)
	get.Body.Close() // its stream gone, the session ends and frees its place
	awaitFreePlace(t, ts.URL+"/mcp", 20*time.Millisecond, "the HTTP+SSE session kept its place")
	refusedSession(t, newRawHTTP(t, ts.URL+"/sse").do(http.MethodGet, ""), "maxSessions", 1)
}

// legacySend POSTs a message to an HTTP+SSE session.
func legacySend(t *testing.T, p *rawHTTP, body string) {
	t.Helper()
	resp := p.post(body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("POST %s: %d", body, resp.StatusCode)
	}
}

// streamEnds waits until r's stream ends and returns how long that took;
// it fails the test with why if the stream lasts 10s.
func streamEnds(t *testing.T, r *streamable.SSEReader, why string) time.Duration {
	t.Helper()
	start := time.Now()
	ended := make(chan error, 1)
	go func() {
		for {
			if _, _, _, err := r.Next(); err != nil {
				ended <- err
				return
			}
		}
	}()
	select {
	case <-ended:
		return time.Since(start)
	case <-time.After(10 * time.Second):
		t.Fatal(why)
		return 0
	}
}

func TestSSEHandler_idleSessionsExpire(t *testing.T) {
	srv := echoServer(t)
	release := make(chan struct{})
	must(t, srv.AddTool(&mcp.Tool{Name: "slow"}, func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		select {
		case <-release:
		case <-ctx.Done():
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
	}))
	const idle = 100 * time.Millisecond
	ts := serveBoth(t, srv, &streamable.Options{SessionTimeout: idle, MaxSessions: 1})
	_, r, post := openLegacy(t, ts.URL)
	legacySend(t, post, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"old","version":"0"}}}`)
	nextEvent(t, r)
	legacySend(t, post, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	// A request running holds the session open past the timeout; pings
	// do not count as use.
	legacySend(t, post, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow","arguments":{}}}`)
	for range 4 {
		time.Sleep(idle)
		legacySend(t, post, `{"jsonrpc":"2.0","id":"p","method":"ping"}`)
		if ev := nextEvent(t, r); !strings.Contains(ev.data, `"id":"p"`) {
			t.Fatalf("ping answered %+v", ev)
		}
	}
	close(release)
	if ev := nextEvent(t, r); !strings.Contains(ev.data, `"text":"done"`) {
		t.Fatalf("slow answered %+v", ev)
	}
	if d := streamEnds(t, r, "the HTTP+SSE session never expired"); d < idle/2 {
		t.Fatalf("the stream ended %v after the answer, before the idle timeout", d)
	}
	resp := post.post(`{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("POST to the expired session: %d", resp.StatusCode)
	}
	errorBody(t, resp)
	// Its place is free.
	awaitFreePlace(t, ts.URL+"/mcp", 20*time.Millisecond, "the expired HTTP+SSE session kept its place")
}

// MaxSessionEvents sets how many events the default store keeps per
// session for resumption: a stream resumed from its start replays only
// the newest.
func TestHTTP_eventRetentionIsAnOption(t *testing.T) {
	for _, tc := range []struct {
		keep, want int
	}{{0, 11}, {3, 3}} {
		srv := echoServer(t)
		must(t, srv.AddTool(&mcp.Tool{Name: "chatty"}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			for i := range 10 {
				if err := req.Log(ctx, mcp.LevelInfo, "chatty", i); err != nil {
					return nil, err
				}
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "said it all"}}}, nil
		}))
		ts, _ := serveHTTP(t, srv, &streamable.Options{MaxSessionEvents: tc.keep})
		p := newRawHTTP(t, ts.URL)
		p.initialize(mcp.LatestVersion)
		evs := readEvents(t, p.post(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"chatty","arguments":{}}}`))
		if len(evs) != 12 || evs[0].data != "" { // priming, ten logs, the answer
			t.Fatalf("%d events: %+v", len(evs), evs)
		}
		replay := readEvents(t, p.do(http.MethodGet, "", "Last-Event-Id", evs[0].id))
		if len(replay) != tc.want || replay[len(replay)-1] != evs[11] {
			t.Fatalf("MaxSessionEvents %d: %d events replayed, want %d: %+v", tc.keep, len(replay), tc.want, replay)
		}
	}
}

// Sessions started at once are admitted up to the bound, not past it.
func TestHTTP_concurrentInitializesStopAtMaxSessions(t *testing.T) {
	const maxN, tries = 5, 40
	ts, _ := serveHTTP(t, echoServer(t), &streamable.Options{MaxSessions: maxN})
	statuses := make(chan int, tries)
	start := make(chan struct{})
	var clients []*rawHTTP
	for range tries {
		clients = append(clients, newRawHTTP(t, ts.URL))
	}
	for _, p := range clients {
		go func() {
			<-start
			req, err := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(initializeBody))
			if err != nil {
				statuses <- 0
				return
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json")
			resp, err := p.client.Do(req)
			if err != nil {
				statuses <- 0
				return
			}
			resp.Body.Close()
			statuses <- resp.StatusCode
		}()
	}
	close(start)
	count := map[int]int{}
	for range tries {
		count[<-statuses]++
	}
	if count[http.StatusOK] != maxN || count[http.StatusServiceUnavailable] != tries-maxN {
		t.Fatalf("statuses %v, want %d × 200 and %d × 503", count, maxN, tries-maxN)
	}
}

// The Go client reports a refused session as the server's -32000.
// Sessions are of the versions with initialize (stateful).
func TestHTTP_clientSeesTheRefusal(t *testing.T) {
	ts, _ := serveHTTP(t, echoServer(t), &streamable.Options{MaxSessions: 1})
	connectHTTP(t, ts.URL, mcp.NewClient(nil, stateful))
	cs, err := streamable.Connect(context.Background(), mcp.NewClient(nil, stateful), ts.URL, nil)
	if err == nil {
		cs.Close()
		t.Fatal("a session past MaxSessions was accepted")
	}
	if e, ok := errors.AsType[*codec.Error](err); !ok || e.Code != codec.CodeOverloaded || !strings.Contains(e.Message, "maxSessions") {
		t.Fatalf("%T %v", err, err)
	}
}

// An instance that would re-create another's session (shared stores)
// counts it as a new one: past its bound, the request is refused 503,
// and the session lives on where it is.
func TestHTTP_takingASessionOverCountsAgainstTheBound(t *testing.T) {
	opts := &streamable.Options{MaxSessions: 1, SessionStore: streamable.NewMemorySessionStore(), EventStore: streamable.NewMemoryEventStore(0, 0)}
	a, _ := serveHTTP(t, echoServer(t), opts)
	b, _ := serveHTTP(t, echoServer(t), opts)
	p := newRawHTTP(t, a.URL)
	openSession(t, p)
	openSession(t, newRawHTTP(t, b.URL)) // b is full
	q := newRawHTTP(t, b.URL)
	q.session, q.version = p.session, p.version
	refusedSession(t, q.post(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`), "maxSessions", 1)
	stillServes(t, p)
}
