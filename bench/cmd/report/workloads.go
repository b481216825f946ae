package main

// workload is one figure of the report: one unit of one benchmark.
type workload struct {
	key    string  // results.json's name: "W1", "W4-pipelined"
	bench  string  // the benchmark's row: "Echo" for BenchmarkEcho/impl=…
	unit   string  // "ns/op", "MB/s", a custom metric
	better string  // "lower" or "higher"
	title  string  // what it measures
	target float64 // the advantage mcpwire must have over ref (0: none set)
	ref    string  // the implementation the target names ("": the best peer)
}

// workloads are the report's figures, in order.
var workloads = []workload{
	{"W1", "Echo", "ns/op", "lower", "echo round trip, one request outstanding, net.Pipe", 3, ""},
	{"W2", "EchoPipelined", "ns/op", "lower", "pipelined echo over one net.Pipe (ns per request)", 10, ""},
	{"W3", "EchoBatch", "ns/item", "lower", "batch of 100 echo requests over net.Pipe (ns per item)", 10, ""},
	{"W4-pipelined", "ToolsCallPipelined", "ns/op", "lower", "MCP tools/call, 64 callers on one session, stdio", 10, ""},
	{"W4-roundtrip", "ToolsCallRoundTrip", "ns/op", "lower", "MCP tools/call, one call outstanding, stdio", 0, ""},
	{"W4-list", "ToolsList", "ns/op", "lower", "MCP tools/list of 50 tools, stdio", 0, ""},
	{"W5", "Validate", "MB/s", "higher", "validate a 1 MiB mixed MCP stream, line by line", 1, "sonic"},
	{"W5-simd", "ValidateSIMD", "MB/s", "higher", "W5 with the bench built with GOEXPERIMENT=simd (codec's wide string loop)", 1, "sonic"},
	{"W6", "ManyConns", "req/s", "higher", "1,000 loopback TCP connections × 100 requests each", 0, ""},
	{"W6-memory", "ManyConns", "B/conn", "lower", "heap and stacks per open, idle connection in W6", 2, ""},
	{"W7-rss", "PeakRSS", "peak-RSS-B", "lower", "peak RSS of a process running W2 (100,000 requests)", 0, ""},
	{"W7-allocs", "EchoPipelined", "allocs/op", "lower", "allocations per request in W2", 0, ""},
}

// baselines are shown but are not peers: the naive loops, the newline
// scan, and the idle process of W7.
var baselines = map[string]bool{"naive-stdjson": true, "naive-sonic": true, "indexbyte": true, "idle": true}

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
var implOrder = []string{"mcpwire", "go-sdk", "mcp-go", "jrpc2", "sourcegraph", "x-exp-jsonrpc2", "geth",
	"encoding-json", "sonic", "fastjson", "naive-stdjson", "naive-sonic", "indexbyte", "idle"}
