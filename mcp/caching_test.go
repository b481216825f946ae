package mcp_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/mcp"
)

// cachingServer has one feature of each kind and the hints of opts; its
// resource "file:///own" sets its read's hint itself.
func cachingServer(t *testing.T, opts *mcp.CachingOptions) *mcp.Server {
	t.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "srv", Version: "1.0"}, &mcp.ServerOptions{Caching: opts})
	addEcho(srv)
	read := func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{Text: "A"}}}, nil
	}
	must(t, srv.AddResource(&mcp.Resource{URI: "file:///a", Name: "a"}, read))
	must(t, srv.AddResource(&mcp.Resource{URI: "file:///own", Name: "own"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{Text: "B"}},
			TTLMs: mcp.TTL(1500 * time.Millisecond), CacheScope: mcp.CachePublic}, nil
	}))
	must(t, srv.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "file:///t/{x}", Name: "t"}, read))
	must(t, srv.AddPrompt(&mcp.Prompt{Name: "p"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{}, nil
	}))
	return srv
}

// hintOf returns the ttlMs and cacheScope of a result, "-" for each one
// absent.
func hintOf(t *testing.T, raw string) string {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(raw), &m); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	get := func(k string) string {
		if v, ok := m[k]; ok {
			return string(v)
		}
		return "-"
	}
	return get("ttlMs") + " " + get("cacheScope")
}

// TestCaching_hints checks the hints of each cacheable method under
// 2026-07-28: the server's per method, its default for the others, a
// read's own, and what the zero options give; and that results of a
// 2025-11-25 session carry none, not even a read's own.
func TestCaching_hints(t *testing.T) {
	opts := &mcp.CachingOptions{
		Default:      mcp.CacheHint{TTL: 5 * time.Second},
		Tools:        &mcp.CacheHint{TTL: time.Minute, Scope: mcp.CachePublic},
		Prompts:      &mcp.CacheHint{TTL: 2500*time.Millisecond + 999*time.Microsecond, Scope: mcp.CachePublic},
		ResourceRead: &mcp.CacheHint{TTL: -time.Second, Scope: "shared"},
	}
	calls := []struct{ method, params string }{
		{"server/discover", ``},
		{"tools/list", ``},
		{"prompts/list", ``},
		{"resources/list", ``},
		{"resources/templates/list", ``},
		{"resources/read", `"uri":"file:///a"`},
		{"resources/read", `"uri":"file:///t/1"`},
		{"resources/read", `"uri":"file:///own"`},
		{"tools/call", `"name":"echo","arguments":{"text":"x"}`},
	}
	for _, tc := range []struct {
		name string
		opts *mcp.CachingOptions
		want []string
	}{
		{"options", opts, []string{`5000 "private"`, `60000 "public"`, `2500 "public"`, `5000 "private"`,
			`5000 "private"`, `0 "private"`, `0 "private"`, `1500 "public"`, `- -`}},
		{"none", nil, []string{`0 "private"`, `0 "private"`, `0 "private"`, `0 "private"`,
			`0 "private"`, `0 "private"`, `0 "private"`, `1500 "public"`, `- -`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newStatelessPeer(t, cachingServer(t, tc.opts), "inprocess")
			for i, c := range calls {
				params := `{"_meta":` + modernMeta(`{}`)
				if c.params != "" {
					params += "," + c.params
				}
				got := p.call(c.method, params+"}")
				if h := hintOf(t, got); h != tc.want[i] {
					t.Errorf("%s %s: hint %s, want %s (result %s)", c.method, c.params, h, tc.want[i], got)
				}
				if strings.Contains(tc.want[i], `"`) && !strings.HasPrefix(got, `{`) {
					t.Errorf("%s: %s", c.method, got)
				}
			}
		})
	}
	t.Run("2025-11-25", func(t *testing.T) {
		cl := newClient(t, cachingServer(t, opts))
		cl.initialize("2025-11-25")
		for _, c := range calls[1:] {
			raw, err := cl.call(c.method, codec.Raw("{"+c.params+"}"))
			if err != nil {
				t.Fatalf("%s: %v", c.method, err)
			}
			if h := hintOf(t, string(raw)); h != "- -" {
				t.Errorf("%s %s: hint %s under 2025-11-25: %s", c.method, c.params, h, raw)
			}
		}
	})
}

// TestCaching_resultFields checks that the Go client's types read the
// hints as the schema names them.
func TestCaching_resultFields(t *testing.T) {
	var r mcp.ListToolsResult
	must(t, codec.Unmarshal([]byte(`{"tools":[],"ttlMs":300000,"cacheScope":"public"}`), &r))
	if r.TTLMs == nil || *r.TTLMs != 300000 || r.CacheScope != mcp.CachePublic {
		t.Fatalf("got %v %q", r.TTLMs, r.CacheScope)
	}
	if got := *mcp.TTL(-time.Second); got != 0 {
		t.Fatalf("TTL(-1s) = %d, want 0", got)
	}
}
