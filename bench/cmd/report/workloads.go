package main

import "strings"

// workload is one figure of the report: one unit of one benchmark.
type workload struct {
	key    string  // results.json's name: "W1", "W4-pipelined"
	bench  string  // the benchmark's row: "Echo" for BenchmarkEcho/impl=…
	unit   string  // "ns/op", "MB/s", a custom metric
	better string  // "lower" or "higher"
	title  string  // what it measures
	target float64 // the advantage mcpwire must have over ref (0: none set)
	ref    string  // the implementation the target names ("": the best peer)
	modes  bool    // rows in other modes than a library's defaults (see isDefault)
}

// workloads are the report's figures, in order.
var workloads = []workload{
	{"W1", "Echo", "ns/op", "lower", "echo round trip, one request outstanding, net.Pipe", 3, "", false},
	{"W2", "EchoPipelined", "ns/op", "lower", "pipelined echo over one net.Pipe (ns per request)", 10, "", false},
	{"W3", "EchoBatch", "ns/item", "lower", "batch of 100 echo requests over net.Pipe (ns per item)", 10, "", false},
	{"W4-pipelined", "ToolsCallPipelined", "ns/op", "lower", "MCP tools/call, 64 callers on one session, stdio", 10, "", false},
	{"W4-roundtrip", "ToolsCallRoundTrip", "ns/op", "lower", "MCP tools/call, one call outstanding, stdio", 0, "", false},
	{"W4-list", "ToolsList", "ns/op", "lower", "MCP tools/list of 50 tools, stdio", 0, "", false},
	{"W5", "Validate", "MB/s", "higher", "validate a 1 MiB mixed MCP stream, line by line", 1, "sonic", false},
	{"W6", "ManyConns", "req/s", "higher", "1,000 loopback TCP connections × 100 requests each", 0, "", false},
	{"W6-memory", "ManyConns", "B/conn", "lower", "heap and stacks per open, idle connection in W6", 2, "", false},
	{"W7-rss", "PeakRSS", "peak-RSS-B", "lower", "peak RSS of a process running W2 (100,000 requests)", 0, "", false},
	{"W7-allocs", "EchoPipelined", "allocs/op", "lower", "allocations per request in W2", 0, "", false},
	{"W8-pipelined", "HTTPToolsCallPipelined", "ns/op", "lower", "MCP tools/call over Streamable HTTP, 64 callers on one session, in process", 0, "", true},
	{"W8-roundtrip", "HTTPToolsCallRoundTrip", "ns/op", "lower", "MCP tools/call over Streamable HTTP, one call outstanding, in process", 0, "", true},
	{"W9", "RPCHTTP", "ns/op", "lower", "JSON-RPC over HTTP POST, 64 callers pipelined on 2 connections, in process", 0, "geth", true},
	{"W8-outside", "OutsideToolsCall", "calls/s", "higher", "wrk: MCP tools/call over Streamable HTTP, 16 connections, one session", 3, "", true},
	{"W8-outside-roundtrip", "OutsideToolsCallRoundTrip", "calls/s", "higher", "wrk: MCP tools/call over Streamable HTTP, one connection, one call at a time", 2, "", true},
	{"W9-outside", "OutsideRPC", "calls/s", "higher", "wrk: JSON-RPC over HTTP POST, 16 connections", 3, "geth", true},
	{"W8-outside-cpu", "OutsideToolsCall", "server-µs/call", "lower", "the server's CPU time per call in W8-outside (the client's left out)", 0, "", true},
	{"W9-outside-cpu", "OutsideRPC", "server-µs/call", "lower", "the server's CPU time per call in W9-outside (the client's left out)", 0, "geth", true},
}

// isDefault reports whether impl, a row of a workload with modes, is
// what a user of the library's defaults gets: not a baseline, a JSON
// response mode (…-json) nor mcpwire's fasthttp server (…-fasthttp,
// demoserver's -fast-rpc).
func isDefault(impl string) bool {
	return !baselines[impl] && !strings.HasSuffix(impl, "-json") && !strings.HasSuffix(impl, "-fasthttp")
}

// isMcpwire reports whether impl is one of mcpwire's rows (mcpwire, or
// mcpwire in another mode: mcpwire-json…), never a peer.
func isMcpwire(impl string) bool { return impl == "mcpwire" || strings.HasPrefix(impl, "mcpwire-") }

// baselines are shown but are not peers: the naive loops, the newline
// scan, the idle process of W7, and the floor of the outside workloads
// (cmd/httpecho -impl floor: fasthttp answering wrk's calls by byte
// search, what the HTTP stack and the kernel cost per call).
var baselines = map[string]bool{"naive-stdjson": true, "naive-sonic": true, "indexbyte": true, "idle": true, "floor": true}

// peerModules are the peers' Go modules, for their versions.
var peerModules = []struct{ name, path string }{
	{"go-sdk", "github.com/modelcontextprotocol/go-sdk"},
	{"mcp-go", "github.com/mark3labs/mcp-go"},
	{"jrpc2", "github.com/creachadair/jrpc2"},
	{"sourcegraph", "github.com/sourcegraph/jsonrpc2"},
	{"x-exp-jsonrpc2", "golang.org/x/exp/jsonrpc2"},
	{"geth", "github.com/ethereum/go-ethereum"},
	{"sonic (naive-sonic, W5)", "github.com/bytedance/sonic"},
	{"fastjson (W5)", "github.com/valyala/fastjson"},
}

// implOrder is the order of rows in a workload's table; others follow by
// name.
var implOrder = []string{"mcpwire", "mcpwire-json", "mcpwire-fasthttp", "go-sdk", "go-sdk-json", "mcp-go", "jrpc2", "sourcegraph", "x-exp-jsonrpc2", "geth",
	"encoding-json", "sonic", "fastjson", "naive-stdjson", "naive-sonic", "indexbyte", "idle", "floor"}
