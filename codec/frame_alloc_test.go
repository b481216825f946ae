//go:build !race

package codec

import (
	"strings"
	"testing"
)

// TestFramer_nextAllocs: in steady state Next allocates nothing.
func TestFramer_nextAllocs(t *testing.T) {
	msg := []byte(`{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"echo","arguments":{"text":"` +
		strings.Repeat("a", 200) + `"}}}`)
	for _, fm := range benchFramings {
		for _, chunk := range []int{0, 1000, 7} {
			var stream []byte
			for range 10 {
				stream = fm.append(stream, msg)
			}
			fr := NewFramer(&frameRepeatReader{data: stream, chunk: chunk}, fm.f, nil)
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
				t.Errorf("%s, chunk %d: %v allocs per Next, want 0", fm.name, chunk, allocs)
			}
		}
	}
}
