// Package benchout reads go test -bench output: the lines of benchmarks
// named …/impl=NAME, each value with its unit, and the header lines
// (goos, goarch, cpu). cmd/ratios and cmd/report read it so.
package benchout

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// Result is one line of benchmark output.
type Result struct {
	Row    string             // the name without Benchmark, /impl= and -GOMAXPROCS: "Echo", "ToolsCall/transport=mem/mode=pipelined"
	Impl   string             // "mcpwire"
	Values map[string]float64 // by unit: "ns/op", "B/op", "MB/s", custom metrics
}

// Parse reads the lines of r that report a benchmark with an impl=, and
// the header lines ("cpu: …" as header["cpu"]).
func Parse(r io.Reader) (results []Result, header map[string]string, err error) {
	header = map[string]string{}
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		for _, k := range []string{"goos", "goarch", "cpu", "pkg"} {
			if v, ok := strings.CutPrefix(line, k+": "); ok {
				header[k] = strings.TrimSpace(v)
			}
		}
		f := strings.Fields(line)
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") || !strings.Contains(f[0], "/impl=") {
			continue
		}
		name := strings.TrimPrefix(f[0], "Benchmark")
		if i := strings.LastIndexByte(name, '-'); i > strings.LastIndexByte(name, '=') {
			name = name[:i] // the -GOMAXPROCS suffix
		}
		i := strings.LastIndex(name, "/impl=")
		res := Result{Row: name[:i], Impl: name[i+len("/impl="):], Values: map[string]float64{}}
		for j := 2; j+1 < len(f); j += 2 {
			v, err := strconv.ParseFloat(f[j], 64)
			if err != nil {
				return nil, nil, fmt.Errorf("%q: %v", line, err)
			}
			res.Values[f[j+1]] = v
		}
		results = append(results, res)
	}
	return results, header, sc.Err()
}

// Median returns the median of v (0 for none); v is not changed.
func Median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	v = slices.Clone(v)
	slices.Sort(v)
	n := len(v)
	if n%2 == 1 {
		return v[n/2]
	}
	return (v[n/2-1] + v[n/2]) / 2
}
