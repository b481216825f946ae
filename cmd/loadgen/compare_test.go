package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// comparedPair is two runs whose ratios B/A are round numbers.
func comparedPair() (a, b *Report) {
	a = &Report{
		Target: "tcp://127.0.0.1:9000", Mode: "closed", Conns: 4, Depth: 8, Call: "echo", DurationS: 10,
		ThroughputRPS: 10_000,
		LatencyUS:     Latency{P50: 1_000, P90: 2_000, P99: 0, P999: 4_000, Max: 8_000},
		Requests:      100_000, Responses: 99_990, Errors: 0, Lost: 10, Duplicates: 0,
		BytesSent: 1_000_000, BytesReceived: 2_000_000,
		CPU: CPU{Cores: 1, Machine: 2},
	}
	b = &Report{
		Target: "tcp://127.0.0.1:9001", Mode: "open", Rate: "25000", Conns: 4, Call: "echo", DurationS: 10,
		ThroughputRPS: 23_100,
		LatencyUS:     Latency{P50: 500, P90: 3_000, P99: 7_000, P999: 10_000, Max: 2_000},
		Requests:      231_000, Responses: 230_980, Errors: 5, Lost: 20, Duplicates: 0,
		BytesSent: 3_000_000, BytesReceived: 1_000_000,
		CPU: CPU{Cores: 1.5, Machine: 2},
	}
	return a, b
}

func TestWriteCompare_ratios(t *testing.T) {
	a, b := comparedPair()
	var out bytes.Buffer
	if err := writeCompare(&out, a, b, "a.json", "b.json"); err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%s", out.String())
	want := map[string]string{
		"throughput":     "2.31×",
		"latency p50":    "0.50×",
		"latency p90":    "1.50×",
		"latency p99":    "–", // A's is 0
		"latency p99.9":  "2.50×",
		"latency max":    "0.25×",
		"requests":       "2.31×",
		"errors":         "–",
		"lost":           "2.00×",
		"duplicates":     "–",
		"bytes sent":     "3.00×",
		"bytes received": "0.50×",
		"loadgen CPU":    "1.50×",
	}
	lines := strings.Split(out.String(), "\n")
	if h := strings.Fields(lines[0]); !reflect.DeepEqual(h, []string{"a.json", "b.json", "B/A"}) {
		t.Errorf("header %q", lines[0])
	}
	ratioAt := utf8.RuneCountInString(lines[0][:strings.Index(lines[0], "B/A")])
	for _, line := range lines {
		for name, ratio := range want {
			if !strings.HasPrefix(line, name+"  ") {
				continue
			}
			delete(want, name)
			if !strings.HasSuffix(line, "  "+ratio) {
				t.Errorf("%s: %q, want the ratio %s", name, line, ratio)
			}
			if at := utf8.RuneCountInString(line) - utf8.RuneCountInString(ratio); at != ratioAt {
				t.Errorf("%s: the ratio in column %d, the header's B/A in %d", name, at, ratioAt)
			}
		}
	}
	for name := range want {
		t.Errorf("no line for %s", name)
	}
	for _, line := range lines {
		if strings.HasSuffix(line, " ") {
			t.Errorf("trailing spaces: %q", line)
		}
	}
	for _, s := range []string{"10,000 answers/s", "23,100 answers/s", "closed loop, 4 conns × depth 8", "open loop at 25,000 calls/s, 4 conns", "3.0 MB", "1.50 cores"} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("no %q", s)
		}
	}
}

// A run with no answer has no latency: its lines say so instead of
// 0.0µs, and have no ratio.
func TestWriteCompare_noAnswers(t *testing.T) {
	a, b := comparedPair()
	b.Responses, b.ThroughputRPS, b.LatencyUS = 0, 0, Latency{}
	var out bytes.Buffer
	if err := writeCompare(&out, a, b, "a.json", "b.json"); err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(out.String()) {
		if !strings.HasPrefix(line, "latency") {
			continue
		}
		if !strings.Contains(line, "– (no answers)") || !strings.HasSuffix(strings.TrimSpace(line), "–") {
			t.Errorf("%q: want no latency and no ratio for a run without answers", line)
		}
	}
}

func TestRatioText(t *testing.T) {
	for _, tc := range []struct {
		a, b float64
		want string
	}{{0, 5, "–"}, {0, 0, "–"}, {10, 23.1, "2.31×"}, {4, 1, "0.25×"}, {3, 3, "1.00×"}} {
		if got := ratioText(tc.a, tc.b); got != tc.want {
			t.Errorf("ratioText(%v, %v) = %q, want %q", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestReadReport(t *testing.T) {
	dir := t.TempDir()
	a, _ := comparedPair()
	a.ErrorCodes = map[string]int64{"-32601": 2}
	a.Percentiles = []Percentile{{0, 10}, {100, 90}}
	good, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	file := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	r, err := readReport(file("good.json", string(good)))
	if err != nil {
		t.Fatalf("readReport: %v", err)
	}
	if !reflect.DeepEqual(r, a) {
		t.Errorf("read back %+v, want %+v", r, a)
	}
	for _, tc := range []struct{ name, path, want string }{
		{"missing", filepath.Join(dir, "missing.json"), "no such file"},
		{"a directory", dir, "is a directory"},
		{"not JSON", file("bad.json", `{"target": "x",`), "not a loadgen JSON report"},
		{"not an object", file("list.json", `[1, 2]`), "not a loadgen JSON report"},
		{"no target", file("empty.json", `{}`), "no target"},
		{"null", file("null.json", `null`), "no target"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := readReport(tc.path)
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.Contains(err.Error(), tc.path) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q, want one naming %s and saying %q", err, tc.path, tc.want)
			}
		})
	}
}
