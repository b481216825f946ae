package main

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReport_cpuPerCall: the report gives loadgen's CPU time per answer
// (text and JSON), the servers' when loadgen started them (stdio), and
// says when the two cannot be told apart (the server in process).
func TestReport_cpuPerCall(t *testing.T) {
	for _, tc := range []struct {
		name   string
		target func(t *testing.T) []string
		server bool   // server_per_call_us expected
		text   string // in the table's cpu per call line
	}{
		{"stdio", func(t *testing.T) []string { return []string{"stdio:" + demoBin.Path(t)} }, true, "the servers it started"},
		{"tcp", func(t *testing.T) []string { return []string{startServer(t, "-listen", "tcp://127.0.0.1:0").addr} }, false, "loadgen "},
		{"in-process", func(t *testing.T) []string { return nil }, false, "cannot be told apart"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "r.json")
			r, code, out := load(t, append([]string{"-json", path, "-n", "3000", "-c", "2", "-depth", "8"}, tc.target(t)...)...)
			if code != 0 || r.OK != 3000 {
				t.Fatalf("exit %d, %d ok:\n%s", code, r.OK, out)
			}
			want := (r.CPU.UserS + r.CPU.SystemS) * 1e6 / float64(r.Responses)
			if r.CPU.PerCallUS <= 0 || math.Abs(r.CPU.PerCallUS-want) > 0.01*want {
				t.Errorf("per_call_us %v; want (user_s + system_s) / responses = %v", r.CPU.PerCallUS, want)
			}
			if got := r.CPU.ServerPerCallUS > 0; got != tc.server {
				t.Errorf("server_per_call_us %v; want one: %v", r.CPU.ServerPerCallUS, tc.server)
			}
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(raw), `"per_call_us":`) || strings.Contains(string(raw), `"server_per_call_us":`) != tc.server {
				t.Errorf("the JSON report's cpu members are not as documented:\n%s", raw)
			}
			line := ""
			for l := range strings.Lines(out) {
				if strings.Contains(l, "cpu per call") {
					line = l
				}
			}
			if !strings.Contains(line, tc.text) || !strings.Contains(line, latencyText(r.CPU.PerCallUS)) {
				t.Errorf("the table's cpu per call line %q does not say %q and %s:\n%s", line, tc.text, latencyText(r.CPU.PerCallUS), out)
			}
		})
	}
}
