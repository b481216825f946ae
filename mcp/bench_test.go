package mcp_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/mcp"
)

// BenchmarkToolsCall calls the echo tool round trip over an in-memory
// pipe: validation, decoding, the handler, encoding, both sessions.
func BenchmarkToolsCall(b *testing.B) {
	srv := mcp.NewServer(nil, nil)
	if err := addEcho(srv); err != nil {
		b.Fatal(err)
	}
	benchEcho(b, connectB(b, srv))
}

// benchEcho calls the echo tool in cs, b.N times.
func benchEcho(b *testing.B, cs *mcp.ClientSession) {
	ctx := context.Background()
	args := map[string]string{"message": "hello"}
	b.ReportAllocs()
	for b.Loop() {
		res, err := cs.CallTool(ctx, "echo", args)
		if err != nil || len(res.Content) != 1 {
			b.Fatal(res, err)
		}
	}
}

// BenchmarkToolsList lists 100 tools (one page, encoded once).
func BenchmarkToolsList(b *testing.B) {
	srv := mcp.NewServer(nil, nil)
	for i := range 100 {
		if err := srv.AddTool(&mcp.Tool{Name: "tool" + string(rune('a'+i%26)) + string(rune('a'+i/26))}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return nil, nil }); err != nil {
			b.Fatal(err)
		}
	}
	cs := connectB(b, srv)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := cs.Conn().CallRaw(ctx, "tools/list", nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkToolsCall_stateless calls the echo tool as BenchmarkToolsCall
// does, as a 2026-07-28 request (its version and client in _meta, the
// result with resultType and serverInfo).
func BenchmarkToolsCall_stateless(b *testing.B) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
	if err := addEcho(srv); err != nil {
		b.Fatal(err)
	}
	c := connectB(b, srv).Conn()
	ctx := context.Background()
	params := codec.Raw(`{"name":"echo","arguments":{"message":"hello"},"_meta":` + modernMeta(`{}`) + `}`)
	b.ReportAllocs()
	for b.Loop() {
		res, err := c.CallRaw(ctx, "tools/call", params)
		if err != nil || !bytes.Contains(res, []byte(`"resultType":"complete"`)) {
			b.Fatal(string(res), err)
		}
	}
}

// BenchmarkClientToolsCall_stateless is BenchmarkToolsCall with a client
// session of 2026-07-28: the session adds its _meta to each request and
// looks at each result's resultType.
func BenchmarkClientToolsCall_stateless(b *testing.B) {
	srv := mcp.NewServer(nil, nil)
	if err := addEcho(srv); err != nil {
		b.Fatal(err)
	}
	benchEcho(b, connect(b, srv, mcp.NewClient(nil, &mcp.ClientOptions{ProtocolVersion: mcp.Version20260728})))
}
