package main

import (
	"flag"
	"fmt"
	"time"
)

// flagSet defines loadgen's flags on o, and its usage text (the flag
// set's Usage), printed on the flag set's output.
func flagSet(o *options) *flag.FlagSet {
	fs := flag.NewFlagSet("loadgen", flag.ContinueOnError)
	fs.IntVar(&o.conns, "c", 1, "`N` connections (with -mcp: sessions)")
	fs.IntVar(&o.depth, "depth", 1, "`N` messages in flight per connection (closed loop)")
	fs.StringVar(&o.rate, "rate", "", "open loop at `R` calls/s in all, latency from the intended send time;\nA:B/DURATION ramps from A to B (1000:5000/30s)")
	fs.DurationVar(&o.dur, "d", 0, "stop after `DURATION` (default 10s when -n is not given)")
	fs.Int64Var(&o.n, "n", 0, "stop after `N` calls")
	fs.StringVar(&o.method, "method", "echo", "the `METHOD` to call")
	fs.StringVar(&o.params, "params", "", "the params: a `JSON` template with {{seq}}, {{rand N}}, {{randstr N}}, {{choice a,b,c}}\n(default {\"text\":\"hello, world\"} for echo)")
	fs.IntVar(&o.batch, "batch", 1, "send calls in batches of `N`")
	fs.Float64Var(&o.notify, "notify", 0, "send a share `P` (0..1) of the calls as notifications")
	fs.StringVar(&o.mix, "mix", "", "weighted calls from a JSON or YAML `FILE` (see docs/loadgen.md)")
	fs.BoolVar(&o.mcp, "mcp", false, "speak MCP: initialize each session first; over http://, Streamable HTTP")
	fs.StringVar(&o.tool, "tool", "", "MCP: call tool `NAME` (tools/call)")
	fs.StringVar(&o.args, "args", "", "MCP: the tool's or prompt's arguments, a `JSON` template")
	fs.StringVar(&o.resource, "resource", "", "MCP: read resource `URI` (resources/read)")
	fs.StringVar(&o.prompt, "prompt", "", "MCP: get prompt `NAME` (prompts/get)")
	fs.BoolVar(&o.jsonrpc1, "jsonrpc1", false, "speak JSON-RPC 1.0: requests without a jsonrpc member, params an array (default\n[\"hello, world\"] for echo), notifications with id null; 1.0 answers\n({\"result\":…,\"error\":…,\"id\":…}) count as results (the in-process demo server runs\nwith -jsonrpc1)")
	fs.StringVar(&o.expect, "expect", "", "each result must equal this `JSON` (else it counts as a mismatch)")
	fs.StringVar(&o.jsonOut, "json", "", "write the report as JSON to `FILE`")
	fs.StringVar(&o.htmlOut, "html", "", "write the report as a self-contained HTML page to `FILE`")
	fs.StringVar(&o.compare, "compare", "", "compare two -json reports: -compare `A.json` B.json (no load is run)")
	fs.DurationVar(&o.maxP99, "max-p99", 0, "fail (exit 1) when p99 latency is over `DURATION`")
	fs.Int64Var(&o.maxErrors, "max-errors", -1, "fail (exit 1) when there are more than `N` errors")
	fs.StringVar(&o.framing, "framing", "newline", "stdio, tcp and unix framing: newline or header")
	fs.DurationVar(&o.timeout, "timeout", 10*time.Second, "at the end, wait up to `DURATION` for answers in flight; the rest are lost\n(Ctrl-C: stop sending and wait; Ctrl-C again: stop waiting)")
	fs.IntVar(&o.pipeline, "pipeline", 1, "http:// targets: `N` POSTs in flight per TCP connection (HTTP/1.1 pipelining);\n1: one, as wrk and browsers do")
	fs.Var(&o.targets, "target", "load `URL` (repeatable; beside or instead of TARGET): connection i goes to\ntarget i mod n; stdio: commands, which may hold commas, are listed this way")
	fs.Var(o.header, "H", "add the `\"Name: value\"` header to HTTP and WebSocket requests (repeatable)")
	fs.IntVar(&o.procs, "procs", 0, "run on `N` processors (GOMAXPROCS); 0: one per 4 connections for stdio, tcp\nand unix targets, else all (and all when the environment sets GOMAXPROCS)")
	fs.BoolVar(&o.quiet, "q", false, "no progress line")
	fs.BoolVar(&o.verbose, "v", false, "show a stdio server's stderr")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: loadgen [flags] [TARGET]\n\nTARGET: none (the demo server, in process), stdio:CMD ARGS…, tcp://HOST:PORT,\nunix://PATH, ws://HOST:PORT/PATH or http://HOST:PORT/PATH; several of one kind\nas a list, tcp://HOST:PORT,tcp://HOST:PORT (or with -target each): connections\ngo to them in turn and the report breaks down by target.\n\n%s\n\nFlags:\n", exitStatus)
		fs.PrintDefaults()
	}
	return fs
}
