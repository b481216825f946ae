package redisstore_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mcpwire/mcpwire/internal/redistest"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/mcp/streamable"
	"github.com/mcpwire/mcpwire/redisstore"
	"github.com/mcpwire/mcpwire/transport"
)

// A node is one instance of a server, of several sharing a redis-server: its store
// (whose round trips are counted), its mcp.Server with the store as
// SessionState and Broadcast, and its Streamable HTTP handler on a
// loopback port. The instances of a test share one in-process session
// store, so that each can revive the sessions of the others.
type node struct {
	st    *redisstore.Store
	srv   *mcp.Server
	url   *url.URL
	trips atomic.Int64 // round trips to Redis (a pipeline or MULTI is one)
}

// Resources every instance offers.
const (
	uriX = "test://x"
	uriY = "test://y"
)

func newNode(t *testing.T, rs *redistest.Server, name string, sessions streamable.SessionStore) *node {
	t.Helper()
	rdb, err := redisstore.Dial(rs.URL())
	if err != nil {
		t.Fatal(err)
	}
	in := &node{}
	rdb.AddHook(tripCounter{&in.trips})
	in.st = redisstore.New(rdb, &redisstore.Options{Instance: name})
	in.srv = mcp.NewServer(&mcp.Implementation{Name: name, Version: "1"}, &mcp.ServerOptions{
		SessionState: in.st,
		Broadcast:    in.st,
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolsCapability{ListChanged: true}},
	})
	for _, u := range []string{uriX, uriY} {
		err := in.srv.AddResource(&mcp.Resource{URI: u, Name: u}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{}, nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	h := streamable.NewHandler(in.srv, &streamable.Options{SessionStore: sessions})
	ts := httptest.NewServer(h)
	in.url, _ = url.Parse(ts.URL)
	t.Cleanup(func() {
		h.Close()
		ts.Close()
		in.st.Close()
		rdb.Close()
	})
	return in
}

// twoNodes starts a redis-server and instances a and b on it.
func twoNodes(t *testing.T) (*redistest.Server, streamable.SessionStore, *node, *node) {
	t.Helper()
	rs := redistest.Start(t)
	sessions := streamable.NewMemorySessionStore()
	return rs, sessions, newNode(t, rs, "a", sessions), newNode(t, rs, "b", sessions)
}

// session returns this instance's copy of the only session it holds,
// waiting for it to be there.
func (in *node) session(t *testing.T) *mcp.ServerSession {
	t.Helper()
	var ss []*mcp.ServerSession
	waitFor(t, "a session on the instance", func() bool {
		ss = in.srv.Sessions()
		return len(ss) == 1
	})
	return ss[0]
}

// tripCounter counts go-redis's round trips.
type tripCounter struct{ n *atomic.Int64 }

func (tripCounter) DialHook(next redis.DialHook) redis.DialHook { return next }

func (c tripCounter) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if !handshake(cmd) {
			c.n.Add(1)
		}
		return next(ctx, cmd)
	}
}

func (c tripCounter) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		if !handshake(cmds[0]) {
			c.n.Add(1)
		}
		return next(ctx, cmds)
	}
}

// handshake reports whether cmd opens a connection (HELLO, CLIENT
// SETINFO): what a new connection costs once, not an operation.
func handshake(cmd redis.Cmder) bool {
	n := cmd.Name()
	return n == "hello" || n == "client"
}

// steer sends a client's requests to the instances the test picks: its
// POSTs to post, its GET (the standalone stream) to get.
type steer struct {
	post, get atomic.Pointer[node]
	rt        *http.Transport
}

func (s *steer) RoundTrip(r *http.Request) (*http.Response, error) {
	in := s.post.Load()
	if r.Method == http.MethodGet {
		in = s.get.Load()
	}
	r = r.Clone(r.Context())
	r.URL.Scheme, r.URL.Host, r.Host = in.url.Scheme, in.url.Host, in.url.Host
	return s.rt.RoundTrip(r)
}

// A client records what the server sends outside requests.
type client struct {
	cs      *mcp.ClientSession
	steer   *steer
	updates chan string // URIs of notifications/resources/updated
	logs    chan mcp.LoggingLevel
	tools   chan struct{} // notifications/tools/list_changed
}

// connect opens a 2025-11-25 session on in, whose requests then go where
// c.steer says.
func connect(t *testing.T, in *node) *client {
	t.Helper()
	return connectVersion(t, in, mcp.Version20251125)
}

// connectVersion is connect for a session of version v.
func connectVersion(t *testing.T, in *node, v string) *client {
	t.Helper()
	c := &client{steer: &steer{rt: &http.Transport{}}, updates: make(chan string, 16), logs: make(chan mcp.LoggingLevel, 16), tools: make(chan struct{}, 16)}
	c.steer.post.Store(in)
	c.steer.get.Store(in)
	cl := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{
		ProtocolVersion: v,
		ResourceUpdatedHandler: func(_ context.Context, _ *mcp.ClientSession, p *mcp.ResourceUpdatedParams) {
			c.updates <- p.URI
		},
		LoggingMessageHandler: func(_ context.Context, _ *mcp.ClientSession, p *mcp.LoggingMessageParams) {
			c.logs <- p.Level
		},
		ToolListChangedHandler: func(context.Context, *mcp.ClientSession) { c.tools <- struct{}{} },
	})
	hc := &http.Client{Transport: c.steer}
	cs, err := streamable.Connect(context.Background(), cl, "http://instance/mcp", &streamable.ClientOptions{
		HTTPClientOptions:  transport.HTTPClientOptions{Client: hc},
		DisableSSEFallback: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		c.steer.rt.CloseIdleConnections()
	})
	c.cs = cs
	return c
}

// next returns the next value of ch, failing the test after 5s.
func next[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(5 * time.Second):
		t.Fatalf("no %s after 5s", what)
		panic("unreachable")
	}
}

// waitFor waits (5s at most) for cond to hold.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("after 5s still not: %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// within runs f and fails the test if it took longer than d.
func within(t *testing.T, d time.Duration, what string, f func()) {
	t.Helper()
	start := time.Now()
	f()
	if took := time.Since(start); took > d {
		t.Errorf("%s took %v, more than %v", what, took, d)
	}
}
