package benchout

import (
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	in := `goos: linux
cpu: Some CPU @ 2GHz
BenchmarkEcho/impl=mcpwire-2   	 100	 4830 ns/op	 12 B/op	 1 allocs/op
BenchmarkToolsCall/transport=mem/mode=roundtrip/impl=mcp-go-8   	 10	 40000 ns/op	 25000 calls/s
BenchmarkPlain-2   	 10	 1 ns/op
--- FAIL: BenchmarkX
`
	rs, h, err := Parse(strings.NewReader(in))
	if err != nil || len(rs) != 2 {
		t.Fatalf("%d results, %v", len(rs), err)
	}
	if h["cpu"] != "Some CPU @ 2GHz" || h["goos"] != "linux" {
		t.Errorf("header %v", h)
	}
	if r := rs[0]; r.Row != "Echo" || r.Impl != "mcpwire" || r.Values["ns/op"] != 4830 || r.Values["allocs/op"] != 1 {
		t.Errorf("%+v", r)
	}
	if r := rs[1]; r.Row != "ToolsCall/transport=mem/mode=roundtrip" || r.Impl != "mcp-go" || r.Values["calls/s"] != 25000 {
		t.Errorf("%+v", r)
	}
	if _, _, err := Parse(strings.NewReader("BenchmarkEcho/impl=a-2 1 x ns/op\n")); err == nil {
		t.Error("no error for a value that is not a number")
	}
}

func TestMedian(t *testing.T) {
	for _, c := range []struct {
		in   []float64
		want float64
	}{{nil, 0}, {[]float64{3}, 3}, {[]float64{3, 1, 2}, 2}, {[]float64{4, 1, 3, 2}, 2.5}} {
		if got := Median(c.in); got != c.want {
			t.Errorf("Median(%v) = %v, want %v", c.in, got, c.want)
		}
	}
}
