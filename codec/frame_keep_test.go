package codec

import (
	"fmt"
	"strings"
	"testing"
	"testing/iotest"
)

// TestFramer_keepFrames checks that frames kept by KeepFrames survive every
// later read unchanged, on both framings, whether the framer's buffer is the
// first one, a grown one, or one given by size, and whether the next frame
// was already found (Buffered) when they were kept; and that the frames
// read after are the stream's.
func TestFramer_keepFrames(t *testing.T) {
	for _, f := range []Framing{Newline, Header} {
		for _, oneByte := range []bool{true, false} {
			var stream strings.Builder
			const n = 3000
			for i := range n {
				stream.Write(AppendFrame(nil, f, fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"m","params":[%q]}`, i, strings.Repeat("x", i%97))))
			}
			rd := strings.NewReader(stream.String())
			fr := NewFramer(rd, f, nil)
			if oneByte {
				fr = NewFramer(iotest.HalfReader(rd), f, nil)
			}
			type kept struct {
				frame []byte
				want  string
			}
			var keep []kept
			for i := range n {
				got, err := fr.Next()
				want := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"m","params":[%q]}`, i, strings.Repeat("x", i%97))
				if err != nil || string(got) != want {
					t.Fatalf("%s frame %d: %q %v, want %q", f, i, got, err, want)
				}
				if i%7 == 0 {
					if i%2 == 0 {
						fr.Buffered() // the next frame may be found already
					}
					fr.(Keeper).KeepFrames()
					keep = append(keep, kept{got, want})
				}
			}
			if _, err := fr.Next(); err == nil {
				t.Fatalf("%s: a frame past the end", f)
			}
			for _, k := range keep {
				if string(k.frame) != k.want {
					t.Fatalf("%s: a kept frame changed: %q, want %q", f, k.frame, k.want)
				}
			}
		}
	}
}
