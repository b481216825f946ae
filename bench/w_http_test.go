package bench

import (
	"slices"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/bench/echotool"
	"github.com/mcpwire/mcpwire/mcp/streamable"
)

// W8: MCP tools/call of the echo tool over Streamable HTTP on loopback,
// each SDK's handler with its defaults and in its JSON response mode
// (mcp-go's defaults are its JSON mode: it answers JSON unless the
// handler sends notifications), every one driven by the same small
// client (plainHTTP: net/http, one POST per call, the session shared by
// the callers), so that only the servers differ. mcpwire-stateless is
// mcpwire's defaults called under 2026-07-28: no session, the request's
// _meta and its mirroring headers on every call. Rows named …-json are
// not what a user of the defaults gets. (The out-of-process rows of the
// same work are bench/outside's, with wrk as the client.)

// httpToolImpls are W8's servers.
var httpToolImpls = []impl{
	{"mcpwire", mcpwireHTTPDefaults},
	{"mcpwire-stateless", mcpwireHTTPStateless},
	{"mcpwire-json", mcpwireHTTPPlain},
	{"go-sdk", gosdkHTTPDefaults},
	{"go-sdk-json", gosdkHTTPPlain},
	{"mcp-go", mcpgoHTTPPlain},
}

// mcpwireHTTPDefaults is streamable.NewHandler with its defaults (nil
// options), driven by plainHTTPEvents.
func mcpwireHTTPDefaults(tb testing.TB) (caller, func()) {
	h := streamable.NewHandler(mcpwireServer(tb, nil), nil)
	call, stop := plainHTTPEvents(tb, h)
	return call, func() {
		stop()
		h.Close()
	}
}

// mcpwireHTTPStateless is mcpwireHTTPDefaults called under 2026-07-28
// (plainHTTPStateless): no session, each call served on its own.
func mcpwireHTTPStateless(tb testing.TB) (caller, func()) {
	h := streamable.NewHandler(mcpwireServer(tb, nil), nil)
	call, stop := plainHTTPStateless(tb, h)
	return call, func() {
		stop()
		h.Close()
	}
}

// gosdkHTTPDefaults is the go-sdk's handler with its defaults (every
// answer an event stream), driven by plainHTTPEvents.
func gosdkHTTPDefaults(tb testing.TB) (caller, func()) {
	h, closeSessions := echotool.GoSDKHandler(false)
	call, stop := plainHTTPEvents(tb, h)
	return call, func() {
		stop()
		closeSessions()
	}
}

// BenchmarkHTTPToolsCallPipelined is W8 pipelined: 64 callers sharing one
// session, b.N calls in all, each caller with a message of its own.
func BenchmarkHTTPToolsCallPipelined(b *testing.B) { benchImpls(b, httpToolImpls, pipelined) }

// BenchmarkHTTPToolsCallRoundTrip is W8 with one call outstanding.
func BenchmarkHTTPToolsCallRoundTrip(b *testing.B) { benchImpls(b, httpToolImpls, roundTrip) }

// W9: plain JSON-RPC over HTTP POST, bench_echo(["msg"]) answering "msg",
// 64 callers pipelined on 2 connections by one lean client (plainPOST,
// fasthttp's PipelineClient), the servers of BenchmarkRPCEcho: mcpwire's
// net/http handler with the method inline (what transport.NewHTTPHandler
// and cmd/demoserver's /rpc give), its fasthttp handler (demoserver's
// -fast-rpc, not the default), go-ethereum's HTTP server and jrpc2's
// jhttp bridge.

// rpcHTTPImpls are W9's servers: BenchmarkRPCEcho's over HTTP, the
// pooled variants left out.
var rpcHTTPImpls = func() []impl {
	for _, t := range rpcTransports {
		if t.name == "http" {
			return slices.DeleteFunc(slices.Clone(t.impls), func(im impl) bool { return strings.HasSuffix(im.name, "-pooled") })
		}
	}
	panic("bench: BenchmarkRPCEcho has no http table")
}()

// BenchmarkRPCHTTP is W9: ns per call, every answer's id and result
// checked.
func BenchmarkRPCHTTP(b *testing.B) { benchImpls(b, rpcHTTPImpls, pipelined) }

// benchImpls runs each of impls in its own impl=NAME sub-benchmark.
func benchImpls(b *testing.B, impls []impl, run func(*testing.B, caller)) {
	for _, im := range impls {
		b.Run("impl="+im.name, func(b *testing.B) {
			call, stop := im.start(b)
			defer stop()
			run(b, call)
		})
	}
}
