package scaleout

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/mcpwire/mcpwire/internal/redistest"
	"github.com/mcpwire/mcpwire/internal/testproc"
)

// instanceNames name the instances of a cluster, in the proxy's order.
var instanceNames = []string{"a", "b", "c"}

// instance is one demo server of a cluster.
type instance struct {
	name    string
	proc    *testproc.Process
	url     string // http://127.0.0.1:PORT: /mcp, /sse, /rpc under it
	metrics string // http://127.0.0.1:PORT/metrics
}

// cluster is a redis-server, the instances sharing it, and the proxy in
// front of them.
type cluster struct {
	redis *redistest.Server
	inst  map[string]*instance
	proxy *proxy
	hc    *http.Client // for the tests' own calls
}

// startCluster starts a redis-server, the demo servers of instanceNames
// on free loopback ports with -redis and -instance (and args), and the
// proxy; all of it is stopped when the test ends.
func startCluster(t *testing.T, args ...string) *cluster {
	t.Helper()
	return startClusterOn(t, redistest.Start(t), args...)
}

// startClusterOn is startCluster on a redis-server of the test's.
func startClusterOn(t *testing.T, redis *redistest.Server, args ...string) *cluster {
	t.Helper()
	bin := demoBin.Path(t)
	c := &cluster{redis: redis, inst: map[string]*instance{}}
	var backends []backend
	for _, name := range instanceNames {
		a := append([]string{"-listen", "http://127.0.0.1:0", "-metrics", "127.0.0.1:0",
			"-redis", c.redis.URL(), "-instance", name}, args...)
		p := testproc.Start(t, bin, a, "addr", "metrics")
		in := &instance{name: name, proc: p, url: p.Value("addr"), metrics: p.Value("metrics")}
		u, err := url.Parse(in.url)
		if err != nil || u.Host == "" {
			t.Fatalf("instance %s logged addr=%q", name, in.url)
		}
		c.inst[name] = in
		backends = append(backends, backend{name: name, url: u})
	}
	c.proxy = startProxy(t, backends...)
	tr := &http.Transport{MaxIdleConnsPerHost: 64}
	c.hc = &http.Client{Transport: tr}
	t.Cleanup(tr.CloseIdleConnections)
	return c
}

// kill ends the instance name with SIGKILL: no clean shutdown, what it
// held in memory is lost. It stays in the proxy's rotation (see
// proxy.remove).
func (c *cluster) kill(name string) { c.inst[name].proc.Kill() }

// running reports whether the instance's process has not ended.
func (in *instance) running() bool { return in.proc.Cmd().ProcessState == nil }

// scrape reads the instance's metrics directly (not through the proxy).
func (in *instance) scrape(t *testing.T) map[string]*dto.MetricFamily {
	t.Helper()
	hc := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := hc.Get(in.metrics)
	if err != nil {
		t.Fatalf("instance %s: %v", in.name, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("instance %s: GET %s: %d %v", in.name, in.metrics, resp.StatusCode, err)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	mf, err := p.TextToMetricFamilies(strings.NewReader(string(body)))
	if err != nil {
		t.Fatalf("instance %s: %v", in.name, err)
	}
	return mf
}

// value returns the value of the sample of name whose labels include
// labels (pairs: name, value, …), from the instance's metrics; 0 when
// there is none (a counter not yet counted).
func (in *instance) value(t *testing.T, name string, labels ...string) float64 {
	t.Helper()
	return valueIn(in.scrape(t), name, labels...)
}

// valueIn is value on metrics already scraped.
func valueIn(mf map[string]*dto.MetricFamily, name string, labels ...string) float64 {
	f := mf[name]
	if f == nil {
		return 0
	}
	for _, m := range f.GetMetric() {
		if hasLabels(m, labels) {
			switch {
			case m.GetCounter() != nil:
				return m.GetCounter().GetValue()
			case m.GetGauge() != nil:
				return m.GetGauge().GetValue()
			}
		}
	}
	return 0
}

// hasLabels reports whether m has each pair of labels.
func hasLabels(m *dto.Metric, labels []string) bool {
	for i := 0; i+1 < len(labels); i += 2 {
		found := false
		for _, l := range m.GetLabel() {
			if l.GetName() == labels[i] && l.GetValue() == labels[i+1] {
				found = true
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// awaitMetric polls the instance's metrics until ok accepts the value of
// name{labels}, for at most 10 s, and returns the last value.
func (in *instance) awaitMetric(t *testing.T, ok func(float64) bool, name string, labels ...string) float64 {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		v := in.value(t, name, labels...)
		if ok(v) || time.Now().After(deadline) {
			return v
		}
		time.Sleep(20 * time.Millisecond)
	}
}
