package sealed

import (
	"strconv"
	"strings"
	"testing"
)

var benchSizes = []int{64, 1 << 10, DefaultMaxPayload}

func BenchmarkSeal(b *testing.B) {
	r := newRing(b, nil)
	for _, n := range benchSizes {
		payload := make([]byte, n)
		b.Run("size="+strconv.Itoa(n), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(n))
			var tok string
			var err error
			for b.Loop() {
				tok, err = r.Seal(payload, testBinding)
			}
			if err != nil || len(tok) != encoding.EncodedLen(Overhead+n) {
				b.Fatalf("Seal = %d characters, %v", len(tok), err)
			}
		})
	}
}

func BenchmarkOpen(b *testing.B) {
	r := newRing(b, nil)
	for _, n := range benchSizes {
		tok := seal(b, r, string(make([]byte, n)), testBinding)
		b.Run("size="+strconv.Itoa(n), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(n))
			var got []byte
			var err error
			for b.Loop() {
				got, err = r.Open(tok, testBinding)
			}
			if err != nil || len(got) != n {
				b.Fatalf("Open = %d bytes, %v", len(got), err)
			}
		})
	}
}

// BenchmarkOpen_refused measures the refusals a hostile client can make
// the server compute.
func BenchmarkOpen_refused(b *testing.B) {
	r := newRing(b, nil)
	tok := seal(b, r, string(make([]byte, 1<<10)), testBinding)
	for name, bad := range map[string]string{
		"tampered": tok[:100] + "A" + tok[101:],
		"tooLarge": strings.Repeat("A", r.maxToken+1),
	} {
		b.Run("err="+name, func(b *testing.B) {
			b.ReportAllocs()
			var err error
			for b.Loop() {
				_, err = r.Open(bad, testBinding)
			}
			if !isRefusal(err) {
				b.Fatal(err)
			}
		})
	}
}
