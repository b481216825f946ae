package codec

import (
	"strconv"
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

// benchMessage returns a request of about size bytes.
func benchMessage(size int) []byte {
	head := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"`
	tail := `"}}}`
	return []byte(head + strings.Repeat("a", max(size-len(head)-len(tail), 0)) + tail)
}

// benchFramings are the streams the framer benchmarks and allocation
// budgets read: each framing's own, and header framing with a Content-Type
// header as well (as LSP peers may send), which takes the header framer's
// line-by-line path.
var benchFramings = []struct {
	name   string
	f      Framing
	append func(dst, msg []byte) []byte
}{
	{"newline", Newline, Newline.AppendFrame},
	{"header", Header, Header.AppendFrame},
	{"header+content-type", Header, func(dst, msg []byte) []byte {
		dst = append(dst, "Content-Length: "...)
		dst = strconv.AppendInt(dst, int64(len(msg)), 10)
		dst = append(dst, "\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n"...)
		return append(dst, msg...)
	}},
}

// BenchmarkFramer measures frames per second over a stream of many frames;
// one iteration reads one stream's worth (about 1 MiB).
func BenchmarkFramer(b *testing.B) {
	sizes := []struct {
		name string
		size int
	}{{"small", 128}, {"medium", 4 << 10}, {"large", 256 << 10}}
	for _, fm := range benchFramings {
		for _, s := range sizes {
			b.Run("framing="+fm.name+"/size="+s.name, func(b *testing.B) {
				msg := benchMessage(s.size)
				var stream []byte
				n := 0
				for len(stream) < 1<<20 {
					stream = fm.append(stream, msg)
					n++
				}
				fr := NewFramer(&frameRepeatReader{data: stream}, fm.f, nil)
				b.SetBytes(int64(len(stream)))
				b.ReportAllocs()
				for b.Loop() {
					for range n {
						frame, err := fr.Next()
						if err != nil || len(frame) != len(msg) {
							b.Fatalf("Next: %d bytes, %v", len(frame), err)
						}
					}
				}
				b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "frames/s")
			})
		}
	}
}

// BenchmarkReadBody reads one 64 KiB body into a reused buffer.
func BenchmarkReadBody(b *testing.B) {
	body := string(benchMessage(64 << 10))
	rd := strings.NewReader(body)
	buf := make([]byte, 0, 128<<10)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		rd.Reset(body)
		var err error
		if buf, err = ReadBody(rd, 0, buf); err != nil || len(buf) != len(body) {
			b.Fatal(len(buf), err)
		}
	}
}
