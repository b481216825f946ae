package codec

import (
	"bytes"
	"io"
	"strconv"
	"testing"
)

// FuzzFramer: for any stream, any partition of it into reads and any initial
// buffer size, both framings give the frames and errors they give when the
// stream is read in one piece; newline framing also agrees with a plain
// line splitter. No frame is longer than MaxFrameBytes.
//
// Arguments: the stream; chunk sizes (one per byte, 1..64; empty: one
// read); MaxFrameBytes and MaxHeaderBytes (small, so limits are hit), the
// top two bits of maxHdr giving MaxHeaderLines (0: the default).
func FuzzFramer(f *testing.F) {
	for _, c := range frameCases {
		f.Add([]byte(c.in), []byte{1, 2, 3, 5, 8}, uint8(c.maxFrame), uint8(c.maxHdr%64|c.maxLines<<6))
	}
	f.Fuzz(runFuzzFramer)
}

func runFuzzFramer(t *testing.T, stream, chunks []byte, maxFrame, maxHdr uint8) {
	lim := &Limits{MaxFrameBytes: 1 + int(maxFrame)%64, MaxHeaderBytes: 1 + int(maxHdr)%64, MaxHeaderLines: int(maxHdr >> 6)}
	sizes := make([]int, len(chunks))
	for i, c := range chunks {
		sizes[i] = 1 + int(c)%64
	}
	bufSize := 1
	if len(chunks) > 0 {
		bufSize = 1 + int(chunks[0])%32
	}
	for _, framing := range []Framing{Newline, Header} {
		whole := fuzzFrames(t, newFramer(bytes.NewReader(stream), framing, lim, len(stream)+1), lim)
		split := fuzzFrames(t, newFramer(&frameChunkReader{data: stream, sizes: sizes, eofLast: len(chunks)%2 == 1},
			framing, lim, bufSize), lim)
		if !equalTrace(whole, split) {
			t.Fatalf("%s: split reads differ\nwhole %q\nsplit %q", framing, whole, split)
		}
		if framing == Newline {
			if want := newlineOracle(stream, lim.MaxFrameBytes); !equalTrace(whole, want) {
				t.Fatalf("newline: got %q\nwant %q", whole, want)
			}
		}
	}
}

func fuzzFrames(t *testing.T, fr Framer, lim *Limits) []string {
	trace := frameTrace(fr)
	for _, s := range trace {
		if len(s) > 2 && s[:2] == "F:" && len(s)-2 > lim.MaxFrameBytes {
			t.Fatalf("frame of %d bytes over the limit %d", len(s)-2, lim.MaxFrameBytes)
		}
	}
	return trace
}

// newlineOracle is newline framing written the obvious way.
func newlineOracle(stream []byte, max int) []string {
	var out []string
	off := 0
	for len(stream) > 0 {
		line := stream
		next := len(stream)
		if i := bytes.IndexByte(stream, '\n'); i >= 0 {
			line, next = stream[:i], i+1
		}
		line = bytes.TrimSuffix(line, []byte("\r"))
		switch {
		case len(line) == 0:
		case len(line) > max:
			out = append(out, "E:big@"+strconv.Itoa(off))
		default:
			out = append(out, "F:"+string(line))
		}
		stream = stream[next:]
		off += next
	}
	return append(out, io.EOF.Error())
}
