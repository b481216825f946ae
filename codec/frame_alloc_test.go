//go:build !race

package codec

import (
	"strings"
	"testing"
)

// frameRepeatReader returns data over and over, in reads of at most chunk
// bytes (0: as much as fits), without allocating.
type frameRepeatReader struct {
	data  []byte
	off   int
	chunk int
}

func (r *frameRepeatReader) Read(p []byte) (int, error) {
	if r.chunk > 0 && len(p) > r.chunk {
		p = p[:r.chunk]
	}
	n := 0
	for n < len(p) {
		k := copy(p[n:], r.data[r.off:])
		n += k
		r.off = (r.off + k) % len(r.data)
	}
	return n, nil
}

// TestFramer_nextAllocs: in steady state Next allocates nothing.
func TestFramer_nextAllocs(t *testing.T) {
	msg := []byte(`{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"echo","arguments":{"text":"` +
		strings.Repeat("a", 200) + `"}}}`)
	for _, f := range []Framing{Newline, Header} {
		for _, chunk := range []int{0, 1000, 7} {
			var stream []byte
			for range 10 {
				stream = AppendFrame(stream, f, msg)
			}
			fr := NewFramer(&frameRepeatReader{data: stream, chunk: chunk}, f, nil)
			for range 1000 { // warm up: the buffer reaches its size
				fr.Next()
			}
			allocs := testing.AllocsPerRun(1000, func() {
				b, err := fr.Next()
				if err != nil || len(b) != len(msg) {
					t.Fatalf("Next: %d bytes, %v", len(b), err)
				}
				fr.Buffered()
			})
			if allocs != 0 {
				t.Errorf("%s, chunk %d: %v allocs per Next, want 0", f, chunk, allocs)
			}
		}
	}
}
