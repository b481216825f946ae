// Package echo is the same echo service built on each JSON-RPC library
// that bench compares, so that every library does identical work: the
// method test_echo takes params of one string in an array and answers
// that string (["hi"] → "hi"), the parameter decoded into a Go string
// and the result encoded from one. Every server reads and writes
// newline-delimited JSON on a byte stream, one session per stream, with
// the library's defaults otherwise. (x/exp/jsonrpc2's RawFramer writes its
// values back to back: its stream adds a newline after each.)
//
// The servers behind the names in Names:
//
//   - mcpwire: conn.New with a router.Func handler registered inline
//     (the way a cheap method is meant to be registered).
//   - mcpwire-metrics: mcpwire with Prometheus metrics on (package
//     metrics' Collector as conn.Options.Metrics): not a peer, but what
//     observing every request costs, beside mcpwire's figures.
//   - jrpc2: github.com/creachadair/jrpc2, a jrpc2.Server per stream on
//     channel.Line, handler.New (params decoded by reflection).
//   - sourcegraph: github.com/sourcegraph/jsonrpc2, a jsonrpc2.Conn on a
//     plain object stream, the handler on the reading goroutine (its
//     default).
//   - x-exp-jsonrpc2: golang.org/x/exp/jsonrpc2, Serve with RawFramer (its
//     only framing without headers), a newline after each message.
//   - geth: github.com/ethereum/go-ethereum/rpc, rpc.Server.ServeCodec on
//     rpc.NewCodec (the IPC and socket codec).
//   - naive-stdjson, naive-sonic: the baselines, a bufio line loop that
//     decodes each line with encoding/json (or sonic) into a struct,
//     answers, and flushes when no more input is buffered; batches too.
//
// cmd/echoserver serves any of them over stdio or loopback TCP, for
// cmd/loadgen of the root module.
package echo
