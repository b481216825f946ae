package metrics_test

import (
	"context"
	"errors"
	"maps"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/metrics"
	"github.com/mcpwire/mcpwire/pool"
	"github.com/mcpwire/mcpwire/router"
)

// session runs a server with r and opts on one end of a conn.Pipe and
// returns a client on the other.
func session(t *testing.T, r *router.Router, opts conn.Options) *conn.Conn {
	t.Helper()
	return sessionWith(t, r, opts, nil)
}

// sessionWith is session with a client of options copts.
func sessionWith(t *testing.T, r *router.Router, opts conn.Options, copts *conn.Options) *conn.Conn {
	t.Helper()
	a, b := conn.Pipe()
	opts.Router = r
	server := conn.NewStream(conn.NewMessageStream(a, nil), &opts)
	client := conn.NewStream(conn.NewMessageStream(b, nil), copts)
	t.Cleanup(func() {
		client.Close()
		server.Close()
	})
	return client
}

// testRouter serves "add" (pooled, typed), "ping" (inline), "fail" (a
// plain Go error) and "block" (pooled: tells started, then waits for
// release).
func testRouter(t *testing.T, started chan<- struct{}, release <-chan struct{}) *router.Router {
	t.Helper()
	r := router.New()
	for _, err := range []error{
		r.Register("add", router.Func(func(_ context.Context, p [2]int) (int, error) { return p[0] + p[1], nil }), nil),
		r.Register("ping", router.HandlerFunc(func(context.Context, *router.Request) (any, error) {
			return codec.Raw(`"pong"`), nil
		}), &router.MethodOptions{Inline: true}),
		r.Register("fail", router.HandlerFunc(func(context.Context, *router.Request) (any, error) {
			return nil, errors.New("it failed")
		}), nil),
		r.Register("block", router.HandlerFunc(func(context.Context, *router.Request) (any, error) {
			started <- struct{}{}
			<-release
			return true, nil
		}), nil),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	return r
}

// wantCode calls method and checks the JSON-RPC code of the answer (0: a
// result).
func wantCode(t *testing.T, c *conn.Conn, method string, params any, code codec.Code) {
	t.Helper()
	err := c.Call(context.Background(), method, params, nil)
	var e *codec.Error
	switch {
	case code == 0 && err != nil:
		t.Fatalf("%s: %v", method, err)
	case code != 0 && (!errors.As(err, &e) || e.Code != code):
		t.Fatalf("%s: %v, want code %d", method, err, code)
	}
}

// Results, errors and an overload rejection through a real session, read
// back from the registry exactly.
func TestCollector_countsASessionsRequestsByMethodAndCode(t *testing.T) {
	reg := prometheus.NewRegistry()
	col, err := metrics.New(reg, nil)
	if err != nil {
		t.Fatal(err)
	}
	started, release := make(chan struct{}), make(chan struct{})
	client := session(t, testRouter(t, started, release),
		conn.Options{Metrics: col, MaxInFlight: 1, Overload: pool.Reject})

	for i := range 3 {
		wantCode(t, client, "add", [2]int{i, 1}, 0)
	}
	wantCode(t, client, "ping", nil, 0)
	wantCode(t, client, "ping", nil, 0)
	wantCode(t, client, "add", map[string]int{"a": 1}, codec.CodeInvalidParams)
	wantCode(t, client, "nope", nil, codec.CodeMethodNotFound)
	wantCode(t, client, "nope/2", nil, codec.CodeMethodNotFound)
	wantCode(t, client, "fail", nil, codec.CodeInternalError)

	blocked := make(chan error, 1)
	go func() { blocked <- client.Call(context.Background(), "block", nil, nil) }()
	<-started
	if v := scrape(t, reg)["mcpwire_in_flight"]; v != 1 {
		t.Errorf("in flight while block runs: %v, want 1", v)
	}
	wantCode(t, client, "add", [2]int{1, 1}, codec.CodeOverloaded) // MaxInFlight 1 is taken
	const held = 30 * time.Millisecond
	time.Sleep(held)
	close(release)
	if err := <-blocked; err != nil {
		t.Fatal(err)
	}

	got := scrape(t, reg)
	want := map[string]float64{
		`mcpwire_requests_total{code="0",method="add"}`:            3,
		`mcpwire_requests_total{code="-32602",method="add"}`:       1,
		`mcpwire_requests_total{code="-32000",method="add"}`:       1,
		`mcpwire_requests_total{code="0",method="ping"}`:           2,
		`mcpwire_requests_total{code="-32601",method="(unknown)"}`: 2,
		`mcpwire_requests_total{code="0",method="fail"}`:           0,
		`mcpwire_requests_total{code="-32603",method="fail"}`:      1,
		`mcpwire_requests_total{code="0",method="block"}`:          1,
	}
	if r := only(got, "mcpwire_requests_total"); !maps.Equal(r, want) {
		t.Errorf("requests:\n got %v\nwant %v", r, want)
	}
	want = map[string]float64{
		`mcpwire_rejected_total{method="add"}`:   1,
		`mcpwire_rejected_total{method="ping"}`:  0,
		`mcpwire_rejected_total{method="fail"}`:  0,
		`mcpwire_rejected_total{method="block"}`: 0,
	}
	if r := only(got, "mcpwire_rejected_total"); !maps.Equal(r, want) {
		t.Errorf("rejections:\n got %v\nwant %v", r, want)
	}
	// One latency sample per request a handler answered, refusals none;
	// no histogram for "(unknown)", which no handler answers.
	want = map[string]float64{
		`mcpwire_request_duration_seconds_count{method="add"}`:   4,
		`mcpwire_request_duration_seconds_count{method="ping"}`:  2,
		`mcpwire_request_duration_seconds_count{method="fail"}`:  1,
		`mcpwire_request_duration_seconds_count{method="block"}`: 1,
	}
	if r := only(got, "mcpwire_request_duration_seconds_count"); !maps.Equal(r, want) {
		t.Errorf("latency samples:\n got %v\nwant %v", r, want)
	}
	if s := got[`mcpwire_request_duration_seconds_sum{method="block"}`]; s < held.Seconds() || s > 10 {
		t.Errorf("block's latency %vs, held %v", s, held)
	}

	// The last handler's slot is released after its answer is sent.
	for deadline := time.Now().Add(10 * time.Second); scrape(t, reg)["mcpwire_in_flight"] != 0; {
		if time.Now().After(deadline) {
			t.Fatalf("in flight: %v, want 0", scrape(t, reg)["mcpwire_in_flight"])
		}
		time.Sleep(time.Millisecond)
	}
}

func TestNew_registersAllOrNothing(t *testing.T) {
	if _, err := metrics.New(nil, nil); err == nil {
		t.Error("New accepted a nil Registerer")
	}
	reg := prometheus.NewRegistry()
	// A metric of the same name and another shape makes New fail after it
	// registered its first ones: those must be unregistered again.
	reg.MustRegister(prometheus.NewGauge(prometheus.GaugeOpts{Name: "mcpwire_rejected_total", Help: "squatter"}))
	if _, err := metrics.New(reg, nil); err == nil {
		t.Fatal("New registered over a metric of the same name")
	}
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	if len(families) != 1 || families[0].GetName() != "mcpwire_rejected_total" {
		t.Errorf("after a failed New the registry holds %d families, want the squatter only", len(families))
	}

	reg = prometheus.NewRegistry()
	if _, err := metrics.New(reg, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := metrics.New(reg, nil); err == nil {
		t.Error("a second Collector registered on the same registry")
	}
	reg = prometheus.NewRegistry()
	for _, server := range []string{"a", "b"} {
		if _, err := metrics.New(reg, &metrics.Options{ConstLabels: prometheus.Labels{"server": server}}); err != nil {
			t.Errorf("Collectors told apart by ConstLabels: %v", err)
		}
	}
}

func TestCollector_customBucketsAndConstLabels(t *testing.T) {
	reg := prometheus.NewRegistry()
	col, err := metrics.New(reg, &metrics.Options{
		Buckets:     []float64{0.001, 1},
		ConstLabels: prometheus.Labels{"server": "a"},
	})
	if err != nil {
		t.Fatal(err)
	}
	col.Answered("m", 0, 2*time.Millisecond)
	col.Answered("m", 0, 500*time.Microsecond)
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != "mcpwire_request_duration_seconds" {
			continue
		}
		h := f.GetMetric()[0].GetHistogram()
		var bounds []float64
		var counts []uint64
		for _, b := range h.GetBucket() {
			bounds = append(bounds, b.GetUpperBound())
			counts = append(counts, b.GetCumulativeCount())
		}
		if len(bounds) != 2 || bounds[0] != 0.001 || bounds[1] != 1 || counts[0] != 1 || counts[1] != 2 {
			t.Errorf("buckets %v with cumulative counts %v", bounds, counts)
		}
	}
	if v := scrape(t, reg)[`mcpwire_requests_total{code="0",method="m",server="a"}`]; v != 2 {
		t.Errorf("requests with the const label: %v, want 2", v)
	}
}
