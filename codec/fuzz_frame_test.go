package codec

import (
	"bytes"
	"io"
	"strconv"
	"strings"
	"testing"
)

// FuzzFramer: for any stream, any partition of it into reads and any initial
// buffer size, both framings give the frames and errors they give when the
// stream is read in one piece, and agrees with the framing written the
// plain way over the whole stream (newlineOracle, headerOracle). No frame is
// longer than MaxFrameBytes.
//
// Arguments: the stream; chunk sizes (one per byte, 1..64; empty: one
// read); MaxFrameBytes and MaxHeaderBytes (small, so limits are hit), the
// top two bits of maxHdr giving MaxHeaderLines (0: the default).
func FuzzFramer(f *testing.F) {
	for _, c := range frameCases {
		f.Add([]byte(c.in), []byte{1, 2, 3, 5, 8}, fuzzLimitArg(c.maxFrame), fuzzLimitArg(c.maxHdr)|uint8(c.maxLines)<<6)
	}
	f.Fuzz(runFuzzFramer)
}

// fuzzLimitArg returns the argument giving a limit of n bytes (1..64; 0 or
// more than 64: 64, the largest the fuzzer uses).
func fuzzLimitArg(n int) uint8 {
	if n <= 0 || n > 64 {
		return 63
	}
	return uint8(n - 1)
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
		want := newlineOracle(stream, lim.MaxFrameBytes)
		if framing == Header {
			want = headerOracle(stream, lim.WithDefaults())
		}
		if !equalTrace(whole, want) {
			t.Fatalf("%s: got %q\nwant %q", framing, whole, want)
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

// headerOracle is header framing written the plain way, over the whole
// stream: parse a block from pos; on a bad one, search for
// "Content-Length:" from one byte past the start of the offending line, or
// of the block when no line of it was a Content-Length.
func headerOracle(stream []byte, lim Limits) []string {
	var out []string
	pos := 0
	for {
		start, next, item := headerOracleBlock(stream, pos, lim)
		switch {
		case item == "bad":
			out = append(out, "E:bad@"+strconv.Itoa(start))
			i := bytes.Index(asciiLower(stream[next:]), []byte("content-length:"))
			if i < 0 {
				return append(out, "EOF")
			}
			pos = next + i
		case item == "EOF" || item == "UEOF":
			return append(out, item)
		case strings.HasSuffix(item, " UEOF"): // too large, cut short
			return append(out, strings.TrimSuffix(item, " UEOF"), "UEOF")
		default: // a frame or a too large one, with pos past the blank lines
			out = append(out, item)
		}
		if item != "bad" {
			pos = next
		}
	}
}

// headerOracleBlock reads the header block at pos, after the empty lines
// there, and its body. It returns the block's start and: "F:body" or
// "E:big@start" and the offset after the body; "bad" and the offset to
// search from; "EOF"/"UEOF"; or "E:big@start UEOF" when the stream ends
// inside a body too large.
func headerOracleBlock(stream []byte, pos int, lim Limits) (start, next int, item string) {
	for {
		if pos == len(stream) {
			return pos, pos, "EOF"
		}
		if bytes.HasPrefix(stream[pos:], []byte("\n")) {
			pos++
		} else if bytes.HasPrefix(stream[pos:], []byte("\r\n")) {
			pos += 2
		} else {
			break
		}
	}
	start = pos
	n, lines := int64(-1), 0
	for p := pos; ; {
		i := bytes.IndexByte(stream[p:], '\n')
		if i < 0 {
			if len(stream)-p > lim.MaxHeaderBytes+1 {
				return start, p + 1, "bad"
			}
			return start, p, "UEOF"
		}
		line := bytes.TrimSuffix(stream[p:p+i], []byte("\r"))
		if len(line) > lim.MaxHeaderBytes {
			return start, p + 1, "bad"
		}
		if len(line) == 0 {
			body := p + i + 1
			switch {
			case n < 0:
				return start, start + 1, "bad"
			case int64(len(stream)-body) < n:
				if n > int64(lim.MaxFrameBytes) {
					return start, body, "E:big@" + strconv.Itoa(start) + " UEOF"
				}
				return start, body, "UEOF"
			case n > int64(lim.MaxFrameBytes):
				return start, body + int(n), "E:big@" + strconv.Itoa(start)
			}
			return start, body + int(n), "F:" + string(stream[body:body+int(n)])
		}
		lines++
		name, value, ok := bytes.Cut(line, []byte(":"))
		if lines > lim.MaxHeaderLines || !ok || len(name) == 0 ||
			strings.Trim(string(name), "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") != "" {
			return start, p + 1, "bad"
		}
		if strings.EqualFold(string(name), "content-length") {
			v := strings.Trim(string(value), " \t")
			m, err := strconv.ParseInt(v, 10, 64)
			if err != nil || strings.Trim(v, "0123456789") != "" || (n >= 0 && m != n) {
				return start, p + 1, "bad"
			}
			n = m
		}
		p += i + 1
	}
}

// asciiLower returns a copy of b with ASCII letters in lower case and every
// other byte as it is (bytes.ToLower would turn bytes that are not UTF-8
// into U+FFFD, moving offsets).
func asciiLower(b []byte) []byte {
	l := make([]byte, len(b))
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		l[i] = c
	}
	return l
}
