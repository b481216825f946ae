package transport

import (
	"bufio"
	"bytes"
	"strings"
	"testing"
)

// frameOf lays out a frame: first byte b0, payload of n bytes, masked or
// not.
func frameOf(b0 byte, n int, masked bool) []byte {
	s := &wsServerStream{}
	f := s.AppendFrame(nil, bytes.Repeat([]byte{'x'}, n))
	f[0] = b0
	if masked {
		h := wsHeaderLen(n)
		f[1] |= 0x80
		f = append(f[:h:h], append([]byte{1, 2, 3, 4}, f[h:]...)...)
	}
	return f
}

func TestWSServerStream_bufferedMeansAWholeMessage(t *testing.T) {
	text, cont, ping := byte(0x81), byte(0x80), byte(0x89)
	for _, tc := range []struct {
		name string
		in   []byte
		want bool
	}{
		{"empty", nil, false},
		{"one byte", []byte{0x81}, false},
		{"small text", frameOf(text, 10, true), true},
		{"small binary", frameOf(0x82, 10, false), true},
		{"16-bit length", frameOf(text, 300, true), true},
		{"64-bit length", frameOf(text, 70_000, true), true},
		{"partial payload", frameOf(text, 300, true)[:200], false},
		{"partial 16-bit header", frameOf(text, 300, true)[:3], false},
		{"partial 64-bit header", frameOf(text, 70_000, true)[:6], false},
		{"mask key missing", frameOf(text, 0, true)[:4], false},
		{"first fragment", frameOf(0x01, 10, true), false},
		{"continuation", frameOf(cont, 10, true), false},
		{"ping first", append(frameOf(ping, 4, true), frameOf(text, 10, true)...), false},
	} {
		br := bufio.NewReaderSize(bytes.NewReader(tc.in), 1<<20)
		br.Peek(len(tc.in)) // fill the buffer
		s := &wsServerStream{br: br}
		if got := s.Buffered(); got != tc.want {
			t.Errorf("%s: Buffered %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestWSServerStream_frameInPlaceMatchesAppendFrame(t *testing.T) {
	s := &wsServerStream{}
	for _, n := range []int{0, 125, 126, 0xffff, 0x10000} {
		msg := []byte(strings.Repeat("m", n))
		want := s.AppendFrame([]byte("prefix"), msg)
		got := s.FrameInPlace(append([]byte("prefix"), msg...), len("prefix"))
		if !bytes.Equal(got, want) {
			t.Fatalf("n=%d: FrameInPlace and AppendFrame differ", n)
		}
	}
}
