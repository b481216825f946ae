package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestRun turns a small sample of benchmark output into the three files
// and checks them: results.json's exact shape and medians, the summary's
// advantages and targets, and a PNG.
func TestRun(t *testing.T) {
	out := t.TempDir()
	if err := run([]string{"-out", out, "-variant", "short", "-note", "A test.", "-gomod", "../../go.mod", "testdata/sample.txt"}, nil); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(out, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil {
		t.Fatal(err)
	}
	if keys := sortedKeys(top); !slices.Equal(keys, []string{"cpu", "go", "workloads"}) {
		t.Fatalf("results.json has %v", keys)
	}
	var wls map[string]map[string]json.RawMessage
	if err := json.Unmarshal(top["workloads"], &wls); err != nil {
		t.Fatal(err)
	}
	if keys := sortedKeys(wls); !slices.Equal(keys, []string{"W1", "W2", "W5", "W6", "W6-memory", "W7-allocs", "W8-outside", "W8-outside-cpu", "W9", "W9-outside", "W9-outside-cpu"}) {
		t.Fatalf("workloads %v", keys)
	}
	for k, w := range wls {
		if keys := sortedKeys(w); !slices.Equal(keys, []string{"better", "impls", "unit"}) {
			t.Errorf("%s has %v", k, keys)
		}
	}
	var res results
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatal(err)
	}
	w1 := res.Workloads["W1"]
	if res.CPU != "Sample CPU @ 3.00GHz" || w1.Unit != "ns/op" || w1.Better != "lower" || w1.Impls["mcpwire"] != 5000 || w1.Impls["geth"] != 16000 {
		t.Errorf("results %+v", res)
	}
	if w5 := res.Workloads["W5"]; w5.Better != "higher" || w5.Impls["sonic"] != 3500 {
		t.Errorf("W5 %+v", w5)
	}
	md, err := os.ReadFile(filepath.Join(out, "RESULTS.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"the **short** variant. A test.",
		"| W1 | echo round trip, one request outstanding, net.Pipe | ns/op (lower is better) | 5.00 µs | geth 16.00 µs | 3.20× | ≥ 3× vs best peer | **yes** |",
		"| W2 |", "9.00×", "≥ 10× vs best peer | no |",
		"| sonic 3,500 MB/s | 0.37× | ≥ 1× vs sonic | no |",
		"| W6-memory |", "0.23×",
		"| naive-sonic (baseline) | 3.00 µs | 0.60× |",
		"**sourcegraph** has none",
		"| mcpwire | rejects | rejects | rejects | accepts |",
		"jrpc2 github.com/creachadair/jrpc2 v",
		// W8 and W9: mcpwire's other modes are not peers, and the rows
		// say which are the defaults.
		"| W8-outside | wrk: MCP tools/call over Streamable HTTP, 16 connections, one session | calls/s (higher is better) | 30,000 calls/s | mcp-go 10,000 calls/s | 3.00× | ≥ 3× vs best peer | **yes** |",
		"| mcpwire-json | 60,000 calls/s | 0.50× | no |",
		"| go-sdk-json | 4,000 calls/s | 7.50× | no |",
		"| mcp-go | 10,000 calls/s | 3.00× | **yes** |",
		"| W9 | JSON-RPC over HTTP POST, 64 callers pipelined on 2 connections, in process | ns/op (lower is better) | 10.00 µs | jrpc2 15.00 µs | 1.50× (vs jrpc2); 2.00× (vs geth) | — | — |",
		"| mcpwire-fasthttp | 5.00 µs | 0.50× | no |",
		"| W8-outside-cpu |", "| 20.5 µs | mcp-go 41.0 µs | 2.00× |",
		// floor, faster than any peer, is a baseline: never the best
		// peer, never what a user of the defaults gets.
		"| floor (baseline) | 96,000 calls/s | 0.31× | no |",
		"| floor (baseline) | 9.4 µs | 0.46× | no |",
		"| W9-outside | wrk: JSON-RPC over HTTP POST, 16 connections | calls/s (higher is better) | 80,000 calls/s | geth 40,000 calls/s | 2.00× | ≥ 3× vs geth | no |",
		"| W9-outside-cpu |", "| 12.5 µs | geth 30.0 µs | 2.40× |",
		"baselines (naive-stdjson, naive-sonic, indexbyte, idle, floor) are shown but are not peers. floor, in the outside workloads, is fasthttp",
	} {
		if !strings.Contains(string(md), want) {
			t.Errorf("RESULTS.md lacks %q", want)
		}
	}
	png, err := os.ReadFile(filepath.Join(out, "results.png"))
	if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG")) {
		t.Errorf("results.png: %v, %.8q", err, png)
	}
}

// The chart colours mcpwire, the peers and the baselines (floor among
// them) apart.
func TestBarGroup(t *testing.T) {
	for impl, want := range map[string]string{"mcpwire": "mcpwire", "mcp-go": "peer", "floor": "base", "naive-sonic": "base"} {
		if got := barGroup(impl); got != want {
			t.Errorf("barGroup(%q) = %q, want %q", impl, got, want)
		}
	}
}

func TestRun_refusesEmptyInput(t *testing.T) {
	if err := run([]string{"-out", t.TempDir()}, strings.NewReader("PASS\n")); err == nil {
		t.Fatal("no error without results")
	}
}

func TestFormat(t *testing.T) {
	for _, c := range []struct {
		unit string
		v    float64
		want string
	}{
		{"ns/op", 950, "950 ns"}, {"ns/op", 4830, "4.83 µs"}, {"ns/item", 2.5e6, "2.50 ms"},
		{"B/conn", 18000, "17.6 KiB"}, {"peak-RSS-B", 3 << 20, "3.0 MiB"},
		{"req/s", 1234567, "1,234,567 req/s"}, {"allocs/op", 25, "25"},
	} {
		if got := format(c.unit, c.v); got != c.want {
			t.Errorf("format(%q, %v) = %q, want %q", c.unit, c.v, got, c.want)
		}
	}
}

func sortedKeys[V any](m map[string]V) []string {
	var k []string
	for key := range m {
		k = append(k, key)
	}
	slices.Sort(k)
	return k
}
