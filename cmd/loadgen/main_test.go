package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/internal/testproc"
)

// demoBin is the demo server, built for these tests.
var demoBin = testproc.NewBinary("github.com/mcpwire/mcpwire/cmd/demoserver")

func TestMain(m *testing.M) { testproc.Main(m, demoBin.Remove) }

// server is a demo server process serving metrics.
type server struct {
	addr    string // as logged: tcp://127.0.0.1:PORT, http://127.0.0.1:PORT…
	metrics string // its metrics URL
}

// startServer starts the demo server with args and -metrics, and returns
// once it has logged its addresses. It is killed when the test ends.
func startServer(t testing.TB, args ...string) *server {
	t.Helper()
	p := testproc.Start(t, demoBin.Path(t), append(args, "-metrics", "127.0.0.1:0"), "addr", "metrics")
	return &server{addr: p.Value("addr"), metrics: p.Value("metrics")}
}

// answered returns how many requests of method the server answered, by
// its metrics (mcpwire_requests_total, all codes).
func (s *server) answered(t testing.TB, method string) int64 {
	t.Helper()
	resp, err := http.Get(s.metrics)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	re := regexp.MustCompile(`(?m)^mcpwire_requests_total\{([^}]*)\} (\S+)$`)
	var n int64
	for _, m := range re.FindAllStringSubmatch(string(body), -1) {
		if strings.Contains(m[1], `method="`+method+`"`) {
			v, _ := strconv.ParseFloat(m[2], 64)
			n += int64(v)
		}
	}
	return n
}

// load runs loadgen with args (-q added, and -json unless args have it)
// and returns its report, exit status and output.
func load(t testing.TB, args ...string) (*Report, int, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "report.json")
	if i := slices.Index(args, "-json"); i >= 0 && i+1 < len(args) {
		path = args[i+1]
	} else {
		args = append([]string{"-json", path}, args...)
	}
	var stdout, stderr bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	code := run(ctx, append([]string{"-q"}, args...), &stdout, &stderr)
	if code == 2 {
		t.Fatalf("loadgen %q: usage error: %s", args, stderr.String())
	}
	r, err := readReport(path)
	if err != nil {
		t.Fatalf("loadgen %q: no report (exit %d): %v\n%s%s", args, code, err, stdout.String(), stderr.String())
	}
	return r, code, stdout.String()
}

// clean checks a report says n requests were sent and each answered once
// with a result.
func clean(t *testing.T, r *Report, n int64) {
	t.Helper()
	if r.Requests != n || r.Responses != n || r.OK != n || r.Errors != 0 || r.Lost != 0 || r.Duplicates != 0 || r.Unknown != 0 {
		t.Errorf("report: requests %d responses %d ok %d errors %d (codes %v %v, transport %d, warnings %q) lost %d duplicates %d unknown %d; want %d answered, no errors",
			r.Requests, r.Responses, r.OK, r.Errors, r.ErrorCodes, r.ErrorSamples, r.TransportErrors, r.Warnings, r.Lost, r.Duplicates, r.Unknown, n)
	}
	if r.ThroughputRPS <= 0 || r.LatencyUS.P50 <= 0 || r.BytesSent <= 0 || r.BytesReceived <= 0 {
		t.Errorf("report: throughput %v p50 %v bytes %d/%d: want them measured", r.ThroughputRPS, r.LatencyUS.P50, r.BytesSent, r.BytesReceived)
	}
}

func unmarshalJSON(s string, v any) error { return json.Unmarshal([]byte(s), v) }
