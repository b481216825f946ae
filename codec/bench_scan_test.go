package codec

import (
	"encoding/json"
	"errors"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/bytedance/sonic"
)

// benchScanInputs are the workloads of BenchmarkScan and BenchmarkValid: one
// frame each for the sizes, the whole session for the stream.
func benchScanInputs() []struct {
	name   string
	frames [][]byte
} {
	r := rand.New(rand.NewPCG(3, 4))
	return []struct {
		name   string
		frames [][]byte
	}{
		{"size=small", [][]byte{[]byte(mcpSmallRequest(42))}},
		{"size=echo", [][]byte{[]byte(`{"jsonrpc":"2.0","id":123,"method":"echo","params":{"text":"hello, world","n":42,"tags":["a","b"]}}`)}},
		{"size=medium", [][]byte{[]byte(mcpToolsList(42))}},
		{"size=large", [][]byte{[]byte(mcpLarge(r, 42))}},
		{"size=blob", [][]byte{[]byte(mcpImage(r, 42))}},
		{"stream=mixedMCP", mcpStream()},
	}
}

func totalBytes(frames [][]byte) (n int64) {
	for _, f := range frames {
		n += int64(len(f))
	}
	return n
}

func BenchmarkScan(b *testing.B) {
	for _, in := range benchScanInputs() {
		b.Run(in.name, func(b *testing.B) {
			s := NewScanner(nil)
			b.ReportAllocs()
			b.SetBytes(totalBytes(in.frames))
			for b.Loop() {
				for _, f := range in.frames {
					msgs, _, err := s.Scan(f)
					if err != nil || len(msgs) == 0 || msgs[0].Kind == KindInvalid {
						b.Fatalf("Scan: %v %+v", err, msgs)
					}
				}
			}
		})
	}
}

func BenchmarkValid(b *testing.B) {
	s := NewScanner(nil)
	impls := []struct {
		name  string
		valid func([]byte) bool
	}{
		{"mcpwire", s.Valid},
		{"encoding_json", json.Valid},
		{"sonic", sonic.Valid},
	}
	for _, impl := range impls {
		for _, in := range benchScanInputs() {
			b.Run("impl="+impl.name+"/"+in.name, func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(totalBytes(in.frames))
				for b.Loop() {
					for _, f := range in.frames {
						if !impl.valid(f) {
							b.Fatalf("%s rejected %.80s", impl.name, f)
						}
					}
				}
			})
		}
	}
}

// BenchmarkScanDeep measures the refusal of nesting past the limit: a
// 100,000-deep array costs the bytes up to the limit, not the whole input.
func BenchmarkScanDeep(b *testing.B) {
	frame := []byte(strings.Repeat("[", 100_000))
	s := NewScanner(nil)
	b.ReportAllocs()
	b.SetBytes(int64(len(frame)))
	for b.Loop() {
		if _, _, err := s.Scan(frame); !errors.Is(err, ErrTooDeep) {
			b.Fatalf("Scan: %v, want ErrTooDeep", err)
		}
	}
}

func BenchmarkScanBatch(b *testing.B) {
	for _, n := range []int{100} {
		b.Run("size="+strconv.Itoa(n), func(b *testing.B) {
			elems := make([]string, n)
			for i := range elems {
				elems[i] = mcpSmallRequest(i)
			}
			frame := []byte("[" + strings.Join(elems, ",") + "]")
			s := NewScanner(nil)
			b.ReportAllocs()
			b.SetBytes(int64(len(frame)))
			for b.Loop() {
				msgs, batch, err := s.Scan(frame)
				if err != nil || !batch || len(msgs) != n || msgs[n-1].Kind != KindRequest {
					b.Fatalf("Scan: %v, batch %v, %d messages", err, batch, len(msgs))
				}
			}
		})
	}
}
