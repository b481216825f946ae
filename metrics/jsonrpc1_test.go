package metrics_test

import (
	"maps"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/metrics"
)

// JSON-RPC 1.0 calls count with the others in mcpwire_requests_total, and
// apart, by method, in mcpwire_jsonrpc1_requests_total.
func TestCollector_labelsJSONRPC1Requests(t *testing.T) {
	reg := prometheus.NewRegistry()
	col, err := metrics.New(reg, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := testRouter(t, nil, nil)
	v1 := sessionWith(t, r, conn.Options{Metrics: col, JSONRPC1: true}, &conn.Options{SendJSONRPC1: true})
	v2 := session(t, r, conn.Options{Metrics: col, JSONRPC1: true})
	wantCode(t, v1, "add", [2]int{1, 2}, 0)
	wantCode(t, v1, "ping", nil, 0)
	wantCode(t, v1, "nope", nil, codec.CodeMethodNotFound)
	wantCode(t, v2, "add", [2]int{1, 2}, 0)

	got := scrape(t, reg)
	want := map[string]float64{
		`mcpwire_jsonrpc1_requests_total{method="add"}`:       1,
		`mcpwire_jsonrpc1_requests_total{method="ping"}`:      1,
		`mcpwire_jsonrpc1_requests_total{method="(unknown)"}`: 1,
	}
	if r := only(got, "mcpwire_jsonrpc1_requests_total"); !maps.Equal(r, want) {
		t.Errorf("1.0 requests:\n got %v\nwant %v", r, want)
	}
	if v := got[`mcpwire_requests_total{code="0",method="add"}`]; v != 2 {
		t.Errorf("add answered %v times in mcpwire_requests_total, want 2 (1.0 and 2.0)", v)
	}
}
