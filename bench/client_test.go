package bench

import (
	"errors"
	"net"
	"testing"
)

// The client benchmark: a JSON-RPC call of test_echo (params one string,
// in an array; result that string) over TCP loopback, newline-delimited
// JSON, each library's client against its own server, and then each
// client against mcpwire's server, so that only the clients differ.

// echoMethod is the method every server serves: go-ethereum's rpc names
// methods namespace_method.
const echoMethod = "test_echo"

// tcpServer listens on TCP loopback and serves test_echo there until stop.
type tcpServer func(tb testing.TB, ln net.Listener) (stop func())

// tcpClient dials addr and returns a caller of test_echo and how to close
// the client.
type tcpClient func(tb testing.TB, addr string) (call caller, stop func())

// overTCP starts srv on a loopback port and connects cli to it.
func overTCP(srv tcpServer, cli tcpClient) func(tb testing.TB) (caller, func()) {
	return func(tb testing.TB) (caller, func()) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			tb.Fatal(err)
		}
		stopServer := srv(tb, ln)
		call, stopClient := cli(tb, ln.Addr().String())
		return call, func() {
			stopClient()
			stopServer()
		}
	}
}

// clientImpls are the clients, each against its own server, then against
// mcpwire's (impl=CLIENT@mcpwire).
var clientImpls = []impl{
	{"mcpwire", overTCP(mcpwireTCPServer, mcpwireTCPClient)},
	{"geth", overTCP(gethServer, gethClient)},
	{"jrpc2", overTCP(jrpc2Server, jrpc2Client)},
	{"sourcegraph", overTCP(sourcegraphServer, sourcegraphClient)},
	{"geth@mcpwire", overTCP(mcpwireTCPServer, gethClient)},
	{"jrpc2@mcpwire", overTCP(mcpwireTCPServer, jrpc2Client)},
	{"sourcegraph@mcpwire", overTCP(mcpwireTCPServer, sourcegraphClient)},
}

// BenchmarkClientCall makes calls of test_echo with each client, one at a
// time (roundtrip) and from 64 goroutines sharing the client's one
// connection (pipelined). One op is one call: ns/op, B/op and allocs/op
// are per call, client and server together (one process). Every answer is
// checked.
func BenchmarkClientCall(b *testing.B) {
	for _, m := range modes {
		for _, im := range clientImpls {
			b.Run("mode="+m.name+"/impl="+im.name, func(b *testing.B) {
				call, stop := im.start(b)
				defer stop()
				m.run(b, call)
			})
		}
	}
}

// TestClientAnswersAreCorrect runs every entry of clientImpls once, as
// TestEchoAnswersAreCorrect does the tables of BenchmarkToolsCall.
func TestClientAnswersAreCorrect(t *testing.T) {
	for _, im := range clientImpls {
		t.Run(im.name, func(t *testing.T) { checkAnswers(t, im) })
	}
}

// errNotOne is a server's answer to params that are not one string.
var errNotOne = errors.New("want params of one string")

// firstOf returns the one string of params, as every server's test_echo.
func firstOf(params []string) (string, error) {
	if len(params) != 1 {
		return "", errNotOne
	}
	return params[0], nil
}
