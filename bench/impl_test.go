package bench

import (
	"context"
	"testing"

	"github.com/mcpwire/mcpwire/bench/echotool"
)

// caller makes one tools/call of the echo tool with message msg and
// returns the text of the one text block answered. Safe for concurrent
// use: the pipelined benchmarks share one caller (one session) among
// many goroutines.
type caller func(ctx context.Context, msg string) (string, error)

// impl is one library over one transport: start connects a client to a
// server of its own (handshake done) and returns the call and how to tear
// both down.
type impl struct {
	name  string
	start func(tb testing.TB) (call caller, stop func())
}

// echoArgs are the echo tool's arguments, as every client sends them.
type echoArgs = echotool.Args

// The tables: one per transport. Adding an implementation is one entry.
var (
	// memImpls run over each library's in-memory transport.
	memImpls = []impl{
		{"mcpwire", mcpwireMem},
		{"mcpwire-pooled", mcpwirePooledMem},
		{"mcpwire-pipe", mcpwirePipe},
		{"go-sdk", gosdkMem},
		{"mcp-go", mcpgoMem},
	}
	// stdioImpls run over two os.Pipe pairs, newline-delimited JSON.
	stdioImpls = []impl{
		{"mcpwire", mcpwireStdio},
		{"mcpwire-pooled", mcpwirePooledStdio},
		{"go-sdk", gosdkStdio},
		{"mcp-go", mcpgoStdio},
	}
	// httpImpls run over Streamable HTTP in JSON response mode, an
	// httptest server on loopback, each library with its own client. The
	// -plain entries drive each library's server with plainHTTP, the same
	// small client for every server, so only the servers differ.
	httpImpls = []impl{
		{"mcpwire", mcpwireHTTP},
		{"mcpwire-pooled", mcpwirePooledHTTP},
		{"go-sdk", gosdkHTTP},
		{"mcp-go", mcpgoHTTP},
		{"mcpwire-plain", mcpwireHTTPPlain},
		{"mcpwire-pooled-plain", mcpwirePooledHTTPPlain},
		{"go-sdk-plain", gosdkHTTPPlain},
		{"mcp-go-plain", mcpgoHTTPPlain},
	}
)

// transports names the tables for the benchmarks and the tests.
var transports = []struct {
	name  string
	impls []impl
}{
	{"mem", memImpls},
	{"stdio", stdioImpls},
	{"http", httpImpls},
}
