package mcp_test

import (
	"context"
	"fmt"
	"time"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/mcp"
)

// A server that says its tool list is the same for everyone and fresh
// for five minutes, and that a read's result is its reader's alone: the
// hints go out on results of 2026-07-28.
func ExampleCachingOptions() {
	srv := mcp.NewServer(&mcp.Implementation{Name: "hinted", Version: "1.0.0"}, &mcp.ServerOptions{
		Caching: &mcp.CachingOptions{
			Default: mcp.CacheHint{TTL: 10 * time.Second, Scope: mcp.CachePrivate},
			Tools:   &mcp.CacheHint{TTL: 5 * time.Minute, Scope: mcp.CachePublic},
		},
	})

	a, b := conn.Pipe()
	session, _ := srv.Connect(context.Background(), conn.NewMessageStream(a, nil))
	defer session.Close()
	client := conn.NewStream(conn.NewMessageStream(b, nil), nil)
	defer client.Close()

	meta := `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}`
	for _, method := range []string{"tools/list", "prompts/list"} {
		raw, _ := client.CallRaw(context.Background(), method, codec.Raw(meta))
		var r struct {
			TTLMs      int64          `json:"ttlMs"`
			CacheScope mcp.CacheScope `json:"cacheScope"`
		}
		_ = codec.Unmarshal(raw, &r)
		fmt.Println(method, r.TTLMs, r.CacheScope)
	}
	// Output:
	// tools/list 300000 public
	// prompts/list 10000 private
}
