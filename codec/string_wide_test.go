package codec

import (
	"strings"
	"testing"
)

// checkPlainRun checks plainRun's contract at d[i]: every byte it steps
// over is plain, and it stops at a byte that is not or where fewer than
// 32 bytes are left (without wide scanning it does not move).
func checkPlainRun(t *testing.T, d []byte, i int) {
	t.Helper()
	k := plainRun(d, i)
	if !wideStrings && k != i {
		t.Fatalf("plainRun(%q, %d) = %d without wide scanning", d, i, k)
	}
	if k < i || k > len(d) {
		t.Fatalf("plainRun(%q, %d) = %d: out of range", d, i, k)
	}
	for j := i; j < k; j++ {
		if !strSafe[d[j]] {
			t.Fatalf("plainRun(%q, %d) = %d steps over %q at %d", d, i, k, d[j], j)
		}
	}
	if wideStrings && k < len(d) && strSafe[d[k]] && len(d)-k >= 32 {
		t.Fatalf("plainRun(%q, %d) = %d stops at a plain byte with %d left", d, i, k, len(d)-k)
	}
}

// TestPlainRun: each byte value at each position of a long plain run, and
// runs of each length, against the contract (string scanning as a whole
// is checked by the scanner's tests and FuzzScan in both builds:
// GOEXPERIMENT=simd for the wide one).
func TestPlainRun(t *testing.T) {
	base := strings.Repeat("abcdefghijklmnopqrstuvwxyz012345", 4) // 128 plain bytes
	for c := range 256 {
		for _, at := range []int{0, 1, 31, 32, 33, 63, 64, 95, 100, 127} {
			d := []byte(base)
			d[at] = byte(c)
			for _, i := range []int{0, 1, 7, 40} {
				checkPlainRun(t, d, i)
			}
		}
	}
	for n := range 100 {
		checkPlainRun(t, []byte(base[:n]), 0)
	}
}

// FuzzPlainRun: plainRun keeps its contract on any bytes from any start.
func FuzzPlainRun(f *testing.F) {
	f.Add([]byte(strings.Repeat("a", 40)+`"`), 0)
	f.Add([]byte(strings.Repeat("é", 40)), 3)
	f.Fuzz(func(t *testing.T, d []byte, i int) {
		if i < 0 || i > len(d) {
			return
		}
		checkPlainRun(t, d, i)
	})
}
