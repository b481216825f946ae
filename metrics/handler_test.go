package metrics_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/metrics"
)

// A scrape of /metrics over HTTP on the loopback interface.
func TestHandler_servesTheRegistryOverHTTP(t *testing.T) {
	reg := prometheus.NewRegistry()
	col, err := metrics.New(reg, nil)
	if err != nil {
		t.Fatal(err)
	}
	client := session(t, testRouter(t, nil, nil), conn.Options{Metrics: col})
	wantCode(t, client, "ping", nil, 0)

	srv := httptest.NewServer(metrics.Handler(reg)) // 127.0.0.1
	defer srv.Close()
	req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, srv.URL+"/metrics", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
		t.Fatalf("%s, Content-Type %q", resp.Status, resp.Header.Get("Content-Type"))
	}
	for _, line := range []string{
		"# TYPE mcpwire_requests_total counter",
		`mcpwire_requests_total{code="0",method="ping"} 1`,
		`mcpwire_request_duration_seconds_count{method="ping"} 1`,
		"mcpwire_in_flight 0",
	} {
		if !strings.Contains(string(body), line+"\n") {
			t.Errorf("no line %q in:\n%s", line, body)
		}
	}
}
