package mcp_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpwire/mcpwire/cache"
	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/mcp"
)

// TestResponseCache_honoursTheHints checks the server's response cache
// on 2026-07-28 requests: a public result is answered from it until its
// ttlMs has passed, then read again; a private one, one fresh for no
// time, one of a request carrying requestState and those of a 2025-11-25
// session are never kept; a change to a list drops its cached pages.
func TestResponseCache_honoursTheHints(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rc := cache.New(nil)
		srv := mcp.NewServer(&mcp.Implementation{Name: "srv", Version: "1.0"}, &mcp.ServerOptions{
			ResponseCache: rc,
			Caching: &mcp.CachingOptions{
				Tools:        &mcp.CacheHint{TTL: time.Minute, Scope: mcp.CachePublic},
				ResourceRead: &mcp.CacheHint{TTL: 2 * time.Second, Scope: mcp.CachePublic},
			},
		})
		reads := map[string]*atomic.Int64{}
		for _, r := range []struct {
			uri   string
			ttl   *int64
			scope mcp.CacheScope
		}{{"file:///public", nil, ""}, {"file:///private", mcp.TTL(time.Minute), mcp.CachePrivate}, {"file:///stale", mcp.TTL(0), ""}} {
			n := new(atomic.Int64)
			reads[r.uri] = n
			must(t, srv.AddResource(&mcp.Resource{URI: r.uri, Name: r.uri}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				n.Add(1)
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{Text: "x"}}, TTLMs: r.ttl, CacheScope: r.scope}, nil
			}))
		}
		addEcho(srv)
		p := newStatelessPeer(t, srv, "inprocess")
		meta := `{"_meta":` + modernMeta(`{}`)
		read := func(uri string, extra ...string) string {
			return p.call("resources/read", meta+`,"uri":"`+uri+`"`+strings.Join(extra, "")+`}`)
		}
		wantReads := func(uri string, n int64) {
			t.Helper()
			if got := reads[uri].Load(); got != n {
				t.Fatalf("%s read %d times, want %d", uri, got, n)
			}
		}

		first := read("file:///public")
		for range 3 {
			if again := read("file:///public"); again != first {
				t.Fatalf("cached answer %s, want %s", again, first)
			}
		}
		wantReads("file:///public", 1)
		time.Sleep(1999 * time.Millisecond)
		read("file:///public")
		wantReads("file:///public", 1)
		time.Sleep(time.Millisecond)
		read("file:///public")
		wantReads("file:///public", 2)

		for _, uri := range []string{"file:///private", "file:///stale"} {
			read(uri)
			read(uri)
			wantReads(uri, 2)
		}
		// A retry of a multi-round-trip request runs its handler each time
		// (a requestState that is not one the server sealed is refused
		// before it can).
		read("file:///public", `,"inputResponses":{}`)
		read("file:///public", `,"inputResponses":{}`)
		wantReads("file:///public", 4)
		if got := read("file:///public", `,"requestState":"s"`); !strings.Contains(got, `-32602`) {
			t.Fatalf("a forged requestState: %s", got)
		}
		wantReads("file:///public", 4)

		cl := newClient(t, srv)
		cl.initialize("2025-11-25")
		for range 2 {
			cl.mustCall("resources/read", codec.Raw(`{"uri":"file:///private"}`), nil)
		}
		wantReads("file:///private", 4)

		list := p.call("tools/list", meta+"}")
		if p.call("tools/list", meta+"}") != list || rc.Hits() == 0 {
			t.Fatalf("tools/list was not answered from the cache (%d hits)", rc.Hits())
		}
		must(t, srv.AddTool(&mcp.Tool{Name: "added"}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		}))
		if got := p.call("tools/list", meta+"}"); !strings.Contains(got, `"added"`) {
			t.Fatalf("tools/list after a tool was added: %s", got)
		}
	})
}
