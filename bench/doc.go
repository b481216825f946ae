// Package bench measures mcpwire against its peers on identical work.
//
// The workloads W1–W7 (Benchmark<Workload>/impl=<name>: BenchmarkEcho,
// BenchmarkEchoPipelined, BenchmarkEchoBatch, BenchmarkToolsCallRoundTrip,
// BenchmarkToolsCallPipelined, BenchmarkToolsList, BenchmarkValidate,
// BenchmarkManyConns, BenchmarkPeakRSS) compare mcpwire with go-sdk,
// mcp-go, jrpc2, sourcegraph/jsonrpc2, x/exp/jsonrpc2, go-ethereum's rpc and
// two naive baselines (package echo holds the same echo service on each),
// and its scanner with encoding/json, sonic and fastjson (package valid).
// W8 (BenchmarkHTTPToolsCallPipelined, BenchmarkHTTPToolsCallRoundTrip:
// MCP over Streamable HTTP, each SDK's defaults and its JSON mode) and W9
// (BenchmarkRPCHTTP: JSON-RPC over HTTP POST against go-ethereum) run in
// process; outside/run.sh runs the same over HTTP from outside, each
// server a process of its own (cmd/demoserver, cmd/httpecho) loaded by
// wrk. run.sh runs them and cmd/report writes RESULTS.md, results.json
// and results.png; TestWorkloads checks every answer of every one.
//
// BenchmarkToolsCall compares mcpwire with the official
// github.com/modelcontextprotocol/go-sdk and github.com/mark3labs/mcp-go
// on the same MCP workload over each transport: tools/call of an echo
// tool whose one required string argument, message, comes back as one
// text block. Client and
// server run in one process, each library with its own client and its own
// server, over an in-memory pipe, over stdio-like byte streams (two
// os.Pipe pairs) and over Streamable HTTP on loopback.
//
// BenchmarkRPCEcho measures plain JSON-RPC 2.0 over HTTP POST and over
// WebSocket: mcpwire's transport handlers against go-ethereum's rpc server
// (HTTP and WebSocket) and jrpc2's jhttp bridge (HTTP), each driven by
// one plain client per transport (net/http; coder/websocket), so that
// only the servers differ.
//
// Everything is in the tests: the benchmarks, TestEchoAnswersAreCorrect
// (each implementation answers once, so the module cannot rot) and an
// allocation budget for mcpwire. README.md says how to run and read them;
// RESULTS.md holds the measured table.
//
// This is a module of its own, so the peers never enter the root go.mod.
package bench
