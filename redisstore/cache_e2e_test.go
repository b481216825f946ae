package redisstore_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/cache"
	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/internal/redistest"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/pool"
	"github.com/mcpwire/mcpwire/router"
)

// mcpInstance is an MCP server whose response cache has its second tier
// in Redis, with a client connected in process.
type mcpInstance struct {
	srv  *mcp.Server
	c    *cache.Cache
	peer *conn.Conn
}

// newMCPInstance serves, behind a tiered response cache: resources/read
// of file:///shared (public for a minute, ttlMs), counting its reads in
// reads, and cached_sleep, a plain method as the demo server's, whose
// result carries the number of its runs in runs.
func newMCPInstance(t *testing.T, srv *redistest.Server, name string, reads, runs *atomic.Int64) *mcpInstance {
	t.Helper()
	tier := storeOn(t, srv, name).CacheTier(nil)
	t.Cleanup(tier.Close)
	c := cache.New(&cache.Options{Tier: tier})
	p, err := pool.New(&pool.Options{Workers: 8})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close(context.Background()) }) // after the sessions
	s := mcp.NewServer(&mcp.Implementation{Name: name, Version: "1"}, &mcp.ServerOptions{
		ResponseCache: c,
		Conn:          &conn.Options{Pool: p},
		Caching:       &mcp.CachingOptions{ResourceRead: &mcp.CacheHint{TTL: time.Minute, Scope: mcp.CachePublic}},
	})
	if err := s.AddResource(&mcp.Resource{URI: "file:///shared", Name: "shared"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		reads.Add(1)
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "file:///shared", Text: "x"}}}, nil
	}); err != nil {
		t.Fatal(err)
	}
	type sleepParams struct {
		MS  int    `json:"ms"`
		Key string `json:"key"`
	}
	type sleepResult struct {
		Key  string `json:"key"`
		Runs int64  `json:"runs"`
	}
	if err := s.AddPlainMethod("cached_sleep", router.Func(func(ctx context.Context, p sleepParams) (*sleepResult, error) {
		r := &sleepResult{Key: p.Key, Runs: runs.Add(1)}
		select {
		case <-time.After(time.Duration(p.MS) * time.Millisecond):
			return r, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}), &router.MethodOptions{Cache: c.Method(time.Minute)}); err != nil {
		t.Fatal(err)
	}
	a, b := conn.InProcess()
	ss, err := s.Connect(context.Background(), a)
	if err != nil {
		t.Fatal(err)
	}
	peer := conn.NewStream(b, &conn.Options{Router: router.New(), Pool: p})
	t.Cleanup(func() {
		peer.Close()
		ss.Close()
		ss.Wait()
	})
	return &mcpInstance{srv: s, c: c, peer: peer}
}

func (in *mcpInstance) call(t *testing.T, method, params string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	raw, err := in.peer.CallRaw(ctx, method, codec.Raw(params))
	if err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	return string(raw)
}

// Two MCP servers on one Redis: cached_sleep called on both, at the same
// time, runs once (runs stays 1), and so does a public resources/read of
// protocol 2026-07-28, whose ttlMs bounds the entry in Redis.
func TestCacheTier_twoMCPServersShareTheirCache(t *testing.T) {
	srv := redistest.Start(t)
	var reads, runs atomic.Int64
	insts := []*mcpInstance{
		newMCPInstance(t, srv, "a", &reads, &runs),
		newMCPInstance(t, srv, "b", &reads, &runs),
	}
	answers := make(chan string, 4)
	for _, in := range insts {
		for range 2 {
			go func() { answers <- in.call(t, "cached_sleep", `{"ms":200,"key":"k"}`) }()
		}
	}
	for range 4 {
		if got := <-answers; !strings.Contains(got, `"runs":1`) {
			t.Fatalf("cached_sleep answered %s, want runs 1", got)
		}
	}
	if n := runs.Load(); n != 1 {
		t.Fatalf("cached_sleep ran %d times over two servers", n)
	}

	read := `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
		`"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},` +
		`"io.modelcontextprotocol/clientCapabilities":{}},"uri":"file:///shared"}`
	first := insts[0].call(t, "resources/read", read)
	if !strings.Contains(first, `"ttlMs":60000`) {
		t.Fatalf("resources/read answered %s", first)
	}
	if again := insts[1].call(t, "resources/read", read); again != first {
		t.Fatalf("b answered %s, a %s", again, first)
	}
	if n := reads.Load(); n != 1 {
		t.Fatalf("the resource was read %d times over two servers", n)
	}
	keys := tierEntryKeys(t, storeOn(t, srv, "probe").Client())
	for _, k := range keys {
		if d := storeOn(t, srv, "probe").Client().PTTL(context.Background(), k).Val(); d <= 0 || d > time.Minute {
			t.Errorf("%s lives %v in Redis, past its result's ttl", k, d)
		}
	}
}
