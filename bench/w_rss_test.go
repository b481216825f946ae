//go:build unix

package bench

import (
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/mcpwire/mcpwire/bench/echo"
)

// rssRequests is how many requests W7's child process pipelines: a
// tenth with -short (the test command's smoke run).
func rssRequests() int {
	if testing.Short() {
		return 20_000
	}
	return 200_000
}

// BenchmarkPeakRSS is W7's peak resident set: each op runs this test
// binary again as a child that runs W2 (BenchmarkEchoPipelined) for one
// implementation, rssRequests() requests, and reads the child's peak RSS
// from the kernel. impl=idle is the child running no benchmark: the
// binary's own floor, with every peer linked in. W7's allocations per
// request are W2's allocs/op.
func BenchmarkPeakRSS(b *testing.B) {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	for _, name := range append(echo.Names[:len(echo.Names):len(echo.Names)], "idle") {
		b.Run("impl="+name, func(b *testing.B) {
			pattern := "^BenchmarkEchoPipelined$/^impl=" + regexp.QuoteMeta(name) + "$"
			if name == "idle" {
				pattern = "^$"
			}
			var peak int64
			for b.Loop() {
				peak = max(peak, childRSS(b, exe, pattern))
			}
			b.ReportMetric(float64(peak), "peak-RSS-B")
		})
	}
}

// childRSS runs exe's benchmarks matching pattern and returns the child's
// peak RSS in bytes.
func childRSS(b *testing.B, exe, pattern string) int64 {
	cmd := exec.Command(exe, "-test.run=^$", "-test.bench="+pattern,
		"-test.benchtime="+strconv.Itoa(rssRequests())+"x", "-test.count=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "PASS") {
		b.Fatalf("child %s: %v\n%s", pattern, err, out)
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		b.Skip("no rusage on this system")
	}
	return int64(ru.Maxrss) * 1024 // kilobytes on Linux
}
