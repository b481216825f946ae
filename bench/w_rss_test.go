//go:build linux

package bench

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/bench/echo"
)

// rssRequests is how many requests W7's child process pipelines: a
// tenth with -short (the test command's smoke run).
func rssRequests() int {
	if testing.Short() {
		return 10_000
	}
	return 100_000
}

// peakEnv, set in a child's environment, makes it print its peak RSS
// (peakLine) after W2 or, with nothing to run, from TestPeakRSSIdle.
const peakEnv = "MCPWIRE_BENCH_PEAK_RSS"

// peakLine starts the line a child prints its peak RSS on, in bytes.
const peakLine = "peak-rss-bytes "

// BenchmarkPeakRSS is W7's peak resident set: each op runs this test
// binary again as a child that runs W2 (BenchmarkEchoPipelined) for one
// implementation, rssRequests() requests, and reports the child's peak RSS
// (VmHWM: the kernel's high-water mark of the child's own memory; its
// rusage would count the parent's, inherited at exec). impl=idle is the
// child running no benchmark: the binary's own floor, with every peer
// linked in. W7's allocations per request are W2's allocs/op.
func BenchmarkPeakRSS(b *testing.B) {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	for _, name := range append(echo.Names[:len(echo.Names):len(echo.Names)], "idle") {
		b.Run("impl="+name, func(b *testing.B) {
			args := []string{"-test.run=^TestPeakRSSIdle$", "-test.bench=^$"}
			if name != "idle" {
				args = []string{"-test.run=^$", "-test.bench=^BenchmarkEchoPipelined$/^impl=" + regexp.QuoteMeta(name) + "$",
					"-test.benchtime=" + strconv.Itoa(rssRequests()) + "x"}
			}
			var peak int64
			for b.Loop() {
				peak = max(peak, childPeak(b, exe, args))
			}
			b.ReportMetric(float64(peak), "peak-RSS-B")
		})
	}
}

// childPeak runs exe with args and returns the largest peak RSS it
// printed.
func childPeak(b *testing.B, exe string, args []string) int64 {
	cmd := exec.Command(exe, append(args, "-test.count=1")...)
	cmd.Env = append(os.Environ(), peakEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		b.Fatalf("child %v: %v\n%s", args, err, out)
	}
	var peak int64
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), peakLine); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				b.Fatalf("child %v printed %q", args, sc.Text())
			}
			peak = max(peak, n)
		}
	}
	if peak == 0 {
		b.Fatalf("child %v printed no peak RSS:\n%s", args, out)
	}
	return peak
}

// TestPeakRSSIdle prints the peak RSS of a child that runs nothing else
// (W7's impl=idle); without peakEnv it does nothing.
func TestPeakRSSIdle(t *testing.T) {
	if os.Getenv(peakEnv) == "" {
		t.Skip(peakEnv + " is not set: only BenchmarkPeakRSS's child runs this")
	}
	printPeak(t)
}

// printPeak prints this process's peak RSS if peakEnv is set.
func printPeak(tb testing.TB) {
	if os.Getenv(peakEnv) == "" {
		return
	}
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		tb.Fatal(err)
	}
	for line := range strings.SplitSeq(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				tb.Fatalf("VmHWM %q: %v", v, err)
			}
			fmt.Printf("%s%d\n", peakLine, kb*1024)
			return
		}
	}
	tb.Fatal("no VmHWM in /proc/self/status")
}
