package main

import (
	"strings"
	"testing"
)

func TestReport_comparesEachMcpwireVariantWithTheFasterPeer(t *testing.T) {
	in := `goos: linux
BenchmarkToolsCall/transport=mem/mode=roundtrip/impl=mcpwire-2   	 100	 10000 ns/op	 100000 calls/s	 3000 B/op	 70 allocs/op
BenchmarkToolsCall/transport=mem/mode=roundtrip/impl=mcpwire-2   	 100	 30000 ns/op	 100000 calls/s	 3000 B/op	 70 allocs/op
BenchmarkToolsCall/transport=mem/mode=roundtrip/impl=mcpwire-2   	 100	 20000 ns/op	 100000 calls/s	 3000 B/op	 70 allocs/op
BenchmarkToolsCall/transport=mem/mode=roundtrip/impl=go-sdk-2    	 100	 90000 ns/op	 10000 calls/s	 9000 B/op	 150 allocs/op
BenchmarkToolsCall/transport=mem/mode=roundtrip/impl=mcp-go-2    	 100	 40000 ns/op	 25000 calls/s	 9000 B/op	 140 allocs/op
BenchmarkToolsCall/transport=http/mode=roundtrip/impl=mcp-go-2   	 100	 50000 ns/op	 20000 calls/s	 9000 B/op	 300 allocs/op
BenchmarkToolsCall/transport=http/mode=roundtrip/impl=go-sdk-plain-2   	 100	 70000 ns/op	 20000 calls/s	 9000 B/op	 300 allocs/op
BenchmarkToolsCall/transport=http/mode=roundtrip/impl=mcpwire-plain-2   	 100	 7000 ns/op	 20000 calls/s	 9000 B/op	 30 allocs/op
BenchmarkRPCEcho/transport=ws/mode=pipelined/impl=mcpwire-2   	 100	 10000 ns/op	 100000 calls/s	 1000 B/op	 20 allocs/op
BenchmarkRPCEcho/transport=ws/mode=pipelined/impl=geth-2   	 100	 30000 ns/op	 30000 calls/s	 4000 B/op	 70 allocs/op
PASS
`
	rs, err := parse(strings.NewReader(in))
	if err != nil || len(rs) != 10 {
		t.Fatalf("%d results, %v", len(rs), err)
	}
	var b strings.Builder
	report(&b, rs)
	out := b.String()
	for _, want := range []string{"transport=mem/mode=roundtrip", "20.0µs", "mcp-go", "40.0µs", "2.00×", "0.50", "go-sdk-plain", "10.00×", "RPCEcho/transport=ws/mode=pipelined", "geth", "3.00×"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}
