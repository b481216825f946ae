// Command demoserver is mcpwire's example server: an MCP server holding
// the fixtures of the official MCP conformance suite (shared/CONFORMANCE.md
// §1: tools, resources, a resource template, prompts, completions, logging,
// progress, sampling, elicitation, list changes, subscriptions; the
// multi-round-trip tools and the tasks of MCP 2026-07-28's scenarios,
// with tasks in every version that has them) plus echo,
// and, on the same stream, the JSON-RPC 2.0 specification's example
// methods (subtract, sum, get_data, echo and the notifications update,
// notify_hello, notify_sum), which answer with or without initialize,
// and two methods for load tests (internal/demoserver/sleep.go): sleep,
// and cached_sleep behind the response cache.
// It serves stdio, TCP, a Unix socket or HTTP, each connection an MCP
// session of its own, in newline or Content-Length framing. It logs to
// stderr only.
//
//	demoserver                                  # stdio, newline framing (MCP's stdio transport)
//	demoserver -framing header                  # stdio, LSP-style headers
//	demoserver -listen tcp://127.0.0.1:7000
//	demoserver -listen unix:///tmp/demo.sock
//	demoserver -listen http://127.0.0.1:8080    # MCP Streamable HTTP at /mcp, HTTP+SSE (2024-11-05) at /sse,
//	                                            # JSON-RPC over HTTP POST at /rpc (/mcp and /rpc on fasthttp), WebSocket at /ws
//	demoserver -listen http://127.0.0.1:8080 -http-server net
//	                                            # the same, every endpoint on net/http
//	demoserver -listen http://127.0.0.1:8080 -fast-rpc 127.0.0.1:8081
//	                                            # and JSON-RPC over HTTP POST on fasthttp at :8081
//	demoserver -page-size 3                     # lists in pages of 3 (to test pagination)
//	demoserver -overload reject -max-inflight 8 # answer -32000 past 8 requests in flight per connection
//	demoserver -inline=false                    # every method of the demo on the pool
//	demoserver -metrics 127.0.0.1:9090          # Prometheus metrics at http://127.0.0.1:9090/metrics
//	demoserver -auth-token s3cret               # every call needs the token (-32009 / HTTP 401 without it)
//	demoserver -listen http://127.0.0.1:8080 -oauth-issuer https://as.example -oauth-scopes add:demo.write
//	                                            # OAuth 2.1 access tokens of that issuer for http://127.0.0.1:8080/mcp
//	                                            # (-32009 / HTTP 401 without one; add needs demo.write: -32010 / HTTP 403);
//	                                            # metadata at /.well-known/oauth-protected-resource/mcp
//	demoserver -rate 100                        # 100 calls per second per peer (-32011 / HTTP 429 past it)
//	demoserver -listen http://127.0.0.1:8080 -redis redis://127.0.0.1:6379/0 -instance a
//	                                            # one of several instances sharing their state through that Redis
//	                                            # (docs/scale-out.md); instance=a on every log line
//
// Every session shares one worker pool, one response cache and one
// admission limit (internal/demoserver/engine.go): a fixed one the size of
// the pool and its queue, or with -adaptive one that follows measured
// latency.
//
// It exits cleanly when stdin closes (stdio) or on
// SIGINT/SIGTERM, letting requests in flight finish first.
//
// The server itself is package internal/demoserver, which can also run it
// in another program's process (demoserver.Start).
package main

import (
	"os"

	"github.com/mcpwire/mcpwire/internal/demoserver"
)

func main() {
	os.Exit(demoserver.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
