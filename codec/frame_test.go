package codec

import (
	"bytes"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
)

// frameCase is one stream and the trace a framer must produce from it.
// A trace lists "F:<frame>" for frames, "E:big@<offset>" or "E:bad@<offset>"
// for *FrameError, and the final error ("EOF", "UEOF", or its text).
type frameCase struct {
	name     string
	framing  Framing
	in       string
	want     []string
	maxFrame int // 0: default
	maxHdr   int // 0: default
	maxLines int // 0: default; at most 3 (FuzzFramer's seeds hold it in 2 bits)
}

func (c *frameCase) limits() *Limits {
	return &Limits{MaxFrameBytes: c.maxFrame, MaxHeaderBytes: c.maxHdr, MaxHeaderLines: c.maxLines}
}

var frameCases = []frameCase{
	// Newline framing.
	{name: "lines", in: "a\nb\n", want: []string{"F:a", "F:b", "EOF"}},
	{name: "crlf", in: "a\r\nb\r\n", want: []string{"F:a", "F:b", "EOF"}},
	{name: "blank lines skipped", in: "\n\r\n\na\n\n\r\n", want: []string{"F:a", "EOF"}},
	{name: "last line unterminated", in: "a\nb", want: []string{"F:a", "F:b", "EOF"}},
	{name: "last line cr", in: "a\nb\r", want: []string{"F:a", "F:b", "EOF"}},
	{name: "empty stream", in: "", want: []string{"EOF"}},
	{name: "only cr", in: "\r", want: []string{"EOF"}},
	{name: "white space line is a frame", in: " \t\n", want: []string{"F: \t", "EOF"}},
	{name: "inner cr kept", in: "a\rb\n\r\r\n", want: []string{"F:a\rb", "F:\r", "EOF"}},
	{name: "json lines", in: `{"jsonrpc":"2.0","id":1,"method":"a"}` + "\n" + `[1,2]` + "\r\n",
		want: []string{`F:{"jsonrpc":"2.0","id":1,"method":"a"}`, "F:[1,2]", "EOF"}},
	{name: "too large then resume", maxFrame: 4, in: "12345\nabc\n", want: []string{"E:big@0", "F:abc", "EOF"}},
	{name: "max with cr", maxFrame: 4, in: "1234\r\n1234", want: []string{"F:1234", "F:1234", "EOF"}},
	{name: "max plus one with cr", maxFrame: 4, in: "12345\r\nab\n", want: []string{"E:big@0", "F:ab", "EOF"}},
	{name: "too large at eof", maxFrame: 4, in: "12345", want: []string{"E:big@0", "EOF"}},
	{name: "max at eof with cr", maxFrame: 4, in: "1234\r", want: []string{"F:1234", "EOF"}},
	{name: "long line skipped", maxFrame: 4, in: "ab\n" + strings.Repeat("x", 100) + "\ncd\n",
		want: []string{"F:ab", "E:big@3", "F:cd", "EOF"}},
	{name: "long last line", maxFrame: 4, in: "ab\n" + strings.Repeat("x", 100),
		want: []string{"F:ab", "E:big@3", "EOF"}},
	{name: "two long lines", maxFrame: 4, in: strings.Repeat("x", 50) + "\n" + strings.Repeat("y", 50) + "\nz\n",
		want: []string{"E:big@0", "E:big@51", "F:z", "EOF"}},

	// Header framing.
	{name: "header", framing: Header, in: "Content-Length: 2\r\n\r\n{}", want: []string{"F:{}", "EOF"}},
	{name: "header two", framing: Header, in: "Content-Length: 2\r\n\r\n{}Content-Length: 3\r\n\r\n[1]",
		want: []string{"F:{}", "F:[1]", "EOF"}},
	{name: "header other headers", framing: Header,
		in:   "content-LENGTH:2\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n{}",
		want: []string{"F:{}", "EOF"}},
	{name: "header lf only", framing: Header, in: "Content-Length: 2\n\n{}", want: []string{"F:{}", "EOF"}},
	{name: "header blanks around", framing: Header, in: "\r\nContent-Length: 2\r\n\r\n{}\r\n\r\nContent-Length:\t1 \r\n\r\n1\r\n",
		want: []string{"F:{}", "F:1", "EOF"}},
	{name: "header zero length", framing: Header, in: "Content-Length: 0\r\n\r\nContent-Length: 1\r\n\r\n1",
		want: []string{"F:", "F:1", "EOF"}},
	{name: "header same length twice", framing: Header, in: "Content-Length: 1\r\nContent-Length: 01\r\n\r\n1",
		want: []string{"F:1", "EOF"}},
	{name: "header body with newlines", framing: Header, in: "Content-Length: 5\r\n\r\n{\n\r\n}",
		want: []string{"F:{\n\r\n}", "EOF"}},
	{name: "header missing length", framing: Header, in: "Content-Type: x\r\n\r\n{}Content-Length: 1\r\n\r\n1",
		want: []string{"E:bad@0", "F:1", "EOF"}},
	{name: "header not a number", framing: Header, in: "Content-Length: abc\r\n\r\n{}Content-Length: 1\r\n\r\n1",
		want: []string{"E:bad@0", "F:1", "EOF"}},
	{name: "header negative", framing: Header, in: "Content-Length: -1\r\n\r\n", want: []string{"E:bad@0", "EOF"}},
	{name: "header plus sign", framing: Header, in: "Content-Length: +1\r\n\r\n1", want: []string{"E:bad@0", "EOF"}},
	{name: "header empty value", framing: Header, in: "Content-Length: \r\n\r\n", want: []string{"E:bad@0", "EOF"}},
	{name: "header overflow", framing: Header, in: "Content-Length: 9223372036854775808\r\n\r\nx",
		want: []string{"E:bad@0", "EOF"}},
	{name: "header two lengths", framing: Header, in: "Content-Length: 1\r\nContent-Length: 2\r\n\r\n12",
		want: []string{"E:bad@0", "EOF"}},
	{name: "header bad name", framing: Header, in: "Content Length: 2\r\n\r\n{}", want: []string{"E:bad@0", "EOF"}},
	{name: "header no colon", framing: Header, in: "hello\r\nContent-Length: 1\r\n\r\n1",
		want: []string{"E:bad@0", "F:1", "EOF"}},
	{name: "header json instead", framing: Header, in: `{"jsonrpc":"2.0"}` + "\n", want: []string{"E:bad@0", "EOF"}},
	{name: "header resync case-insensitive", framing: Header, in: "x y\r\nCONTENT-length: 1\r\n\r\n1",
		want: []string{"E:bad@0", "F:1", "EOF"}},
	{name: "header resync mid-line", framing: Header, in: "x y\r\nabcContent-Length: 1\r\n\r\n1",
		want: []string{"E:bad@0", "F:1", "EOF"}},
	{name: "header resync cc", framing: Header, in: "x y\r\nccContent-Length: 1\r\n\r\n1",
		want: []string{"E:bad@0", "F:1", "EOF"}},
	{name: "header second bad", framing: Header, in: "Content-Length: 1\r\n\r\n1X: y\r\n\r\nContent-Length: 1\r\n\r\n2",
		want: []string{"F:1", "E:bad@22", "F:2", "EOF"}},
	{name: "header line too long", framing: Header, maxHdr: 32,
		in:   "X-Long: " + strings.Repeat("x", 40) + "\r\nContent-Length: 1\r\n\r\n1",
		want: []string{"E:bad@0", "F:1", "EOF"}},
	{name: "header long line hides no length", framing: Header, maxHdr: 32,
		in:   "X-Long: " + strings.Repeat("x", 40) + "Content-Length: 1\r\n\r\n1Content-Length: 1\r\n\r\n2",
		want: []string{"E:bad@0", "F:1", "F:2", "EOF"}},
	{name: "header line at max", framing: Header, maxHdr: 32,
		in:   "X-Long: " + strings.Repeat("x", 24) + "\r\nContent-Length: 1\r\n\r\n1",
		want: []string{"F:1", "EOF"}},
	{name: "header line max plus one", framing: Header, maxHdr: 32,
		in:   "X-Long: " + strings.Repeat("x", 25) + "\r\nContent-Length: 1\r\n\r\n1",
		want: []string{"E:bad@0", "F:1", "EOF"}},
	{name: "header lines at max", framing: Header, maxLines: 3, in: "A: 1\r\nB: 2\r\nContent-Length: 1\r\n\r\n1",
		want: []string{"F:1", "EOF"}},
	{name: "header too many lines", framing: Header, maxLines: 3,
		in:   "A: 1\r\nB: 2\r\nC: 3\r\nContent-Length: 1\r\n\r\n1Content-Length: 1\r\n\r\n2",
		want: []string{"E:bad@0", "F:2", "EOF"}},
	{name: "header too many lines then length", framing: Header, maxLines: 2,
		in:   "A: 1\r\nB: 2\r\nC: 3\r\nContent-Length: 1\r\n\r\n1",
		want: []string{"E:bad@0", "F:1", "EOF"}},
	{name: "header default lines at max", framing: Header,
		in:   strings.Repeat("X-A: b\r\n", DefaultMaxHeaderLines-1) + "Content-Length: 1\r\n\r\n1",
		want: []string{"F:1", "EOF"}},
	{name: "header default lines max plus one", framing: Header,
		in:   strings.Repeat("X-A: b\r\n", DefaultMaxHeaderLines) + "Content-Length: 1\r\n\r\n1Content-Length: 1\r\n\r\n2",
		want: []string{"E:bad@0", "F:2", "EOF"}},
	{name: "header too large", framing: Header, maxFrame: 8,
		in:   "Content-Length: 10\r\n\r\n0123456789Content-Length: 1\r\n\r\n1",
		want: []string{"E:big@0", "F:1", "EOF"}},
	{name: "header at max", framing: Header, maxFrame: 8, in: "Content-Length: 8\r\n\r\n01234567",
		want: []string{"F:01234567", "EOF"}},
	{name: "header huge length", framing: Header, in: "Content-Length: 9223372036854775807\r\n\r\nabc",
		want: []string{"E:big@0", "UEOF"}},
	// A body longer than its Content-Length, or garbage before a header: the
	// next header is found even on the same "line" as the bad bytes.
	{name: "header body longer than length", framing: Header, in: "Content-Length: 2\r\n\r\n{}}}}Content-Length: 2\r\n\r\n[]",
		want: []string{"F:{}", "E:bad@23", "F:[]", "EOF"}},
	{name: "header body after zero length", framing: Header, in: `Content-Length: 0` + "\r\n\r\n" + `{"x":1}Content-Length: 2` + "\r\n\r\n{}",
		want: []string{"F:", "E:bad@21", "F:{}", "EOF"}},
	{name: "header leftover is a header name", framing: Header, in: "Content-Length: 1\r\n\r\n42Content-Length: 2\r\n\r\n[]",
		want: []string{"F:4", "E:bad@22", "F:[]", "EOF"}},
	{name: "header leftover is a header", framing: Header, in: `Content-Length: 8` + "\r\n\r\n" + `{"u":"http://x"}Content-Length: 2` + "\r\n\r\n[]",
		want: []string{`F:{"u":"ht`, "E:bad@29", "F:[]", "EOF"}},
	{name: "header leftover on two lines", framing: Header, in: "Content-Length: 2\r\n\r\n{}a: b\n}Content-Length: 2\r\n\r\n[]",
		want: []string{"F:{}", "E:bad@23", "F:[]", "EOF"}},
	{name: "header garbage first", framing: Header, in: "garbage{}Content-Length: 2\r\n\r\n{}",
		want: []string{"E:bad@0", "F:{}", "EOF"}},
	{name: "header garbage first not ascii", framing: Header, in: "\xff\xfe\xd7Content-Length: 2\r\n\r\n{}0\xd7Content-Length:\n",
		want: []string{"E:bad@0", "F:{}", "E:bad@26", "E:bad@28", "EOF"}},
	{name: "header garbage first is a name", framing: Header, in: "\r\nxyzContent-Length: 2\r\n\r\n{}",
		want: []string{"E:bad@2", "F:{}", "EOF"}},
	{name: "header eof in header", framing: Header, in: "Content-Length: 5\r\n", want: []string{"UEOF"}},
	{name: "header eof in name", framing: Header, in: "Content-Len", want: []string{"UEOF"}},
	{name: "header eof in body", framing: Header, in: "Content-Length: 5\r\n\r\nab", want: []string{"UEOF"}},
	{name: "header eof after frame", framing: Header, in: "Content-Length: 1\r\n\r\n1Cont", want: []string{"F:1", "UEOF"}},
	{name: "header eof resyncing", framing: Header, in: "garbage\r\nmore stuff", want: []string{"E:bad@0", "EOF"}},
	{name: "header empty stream", framing: Header, in: "", want: []string{"EOF"}},
	{name: "header only blanks", framing: Header, in: "\r\n\n\r\n", want: []string{"EOF"}},
}

// frameTrace reads fr to its end (at most 10000 steps).
func frameTrace(fr Framer) []string {
	var out []string
	for range 10000 {
		b, err := fr.Next()
		if err == nil {
			out = append(out, "F:"+string(b))
			continue
		}
		var fe *FrameError
		if errors.As(err, &fe) {
			name := "bad"
			if errors.Is(fe, ErrFrameTooLarge) {
				name = "big"
			}
			out = append(out, "E:"+name+"@"+strconv.FormatInt(fe.Offset, 10))
			continue
		}
		switch err {
		case io.EOF:
			out = append(out, "EOF")
		case io.ErrUnexpectedEOF:
			out = append(out, "UEOF")
		default:
			out = append(out, err.Error())
		}
		return out
	}
	return append(out, "too many frames")
}

func equalTrace(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// frameChunkReader returns data in chunks whose sizes cycle through sizes
// (each 1..256; none: everything at once). With eofLast, the last chunk
// comes with io.EOF.
type frameChunkReader struct {
	data    []byte
	sizes   []int
	i       int
	eofLast bool
}

func (r *frameChunkReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, io.EOF
	}
	n := len(r.data)
	if len(r.sizes) > 0 {
		n = min(n, r.sizes[r.i%len(r.sizes)])
		r.i++
	}
	n = copy(p, r.data[:n])
	r.data = r.data[n:]
	if r.eofLast && len(r.data) == 0 {
		return n, io.EOF
	}
	return n, nil
}

func randomSizes(seed uint64) []int {
	rng := rand.New(rand.NewPCG(seed, 7))
	s := make([]int, 1+rng.IntN(16))
	for i := range s {
		s[i] = 1 + rng.IntN(40)
	}
	return s
}

func TestFramer_cases(t *testing.T) {
	for _, c := range frameCases {
		t.Run(orNewline(c.framing).String()+"/"+c.name, func(t *testing.T) {
			got := frameTrace(NewFramer(strings.NewReader(c.in), c.framing, c.limits()))
			if !equalTrace(got, c.want) {
				t.Errorf("in %q\ngot  %q\nwant %q", c.in, got, c.want)
			}
		})
	}
}

// TestFramer_splitInvariance: any partition of the stream into reads, and any
// initial buffer size, gives the same frames and errors.
func TestFramer_splitInvariance(t *testing.T) {
	type readerMaker struct {
		name string
		make func([]byte) io.Reader
	}
	readers := []readerMaker{
		{"one byte", func(b []byte) io.Reader { return iotest.OneByteReader(bytes.NewReader(b)) }},
		{"half", func(b []byte) io.Reader { return iotest.HalfReader(bytes.NewReader(b)) }},
		{"data with eof", func(b []byte) io.Reader { return iotest.DataErrReader(bytes.NewReader(b)) }},
	}
	for seed := range uint64(8) {
		readers = append(readers, readerMaker{"random " + strconv.FormatUint(seed, 10), func(b []byte) io.Reader {
			return &frameChunkReader{data: b, sizes: randomSizes(seed), eofLast: seed%2 == 0}
		}})
	}
	for _, c := range frameCases {
		for _, rm := range readers {
			for _, size := range []int{1, 3, 16, initialFrameBuf} {
				got := frameTrace(newFramer(rm.make([]byte(c.in)), c.framing, c.limits(), size))
				if !equalTrace(got, c.want) {
					t.Errorf("%s/%s, reader %s, buffer %d:\ngot  %q\nwant %q", c.framing, c.name, rm.name, size, got, c.want)
				}
			}
		}
	}
}

func TestFramer_appendFrameRoundTrip(t *testing.T) {
	msgs := []string{`{"jsonrpc":"2.0","id":1,"result":{}}`, `[]`, strings.Repeat("x", 100000), `"é"`}
	for _, f := range []Framing{Newline, Header} {
		var stream []byte
		for _, m := range msgs {
			stream = AppendFrame(stream, f, []byte(m))
		}
		fr := newFramer(iotest.HalfReader(bytes.NewReader(stream)), f, nil, 16)
		for i, m := range msgs {
			got, err := fr.Next()
			if err != nil || string(got) != m {
				t.Fatalf("%s: frame %d: got %.40q, %v; want %.40q", f, i, got, err, m)
			}
		}
		if _, err := fr.Next(); err != io.EOF {
			t.Fatalf("%s: end: %v, want io.EOF", f, err)
		}
	}
	if got := string(AppendFrame([]byte("x"), Header, []byte("{}"))); got != "xContent-Length: 2\r\n\r\n{}" {
		t.Errorf("AppendFrame header: %q", got)
	}
	if got := string(AppendFrame(nil, Newline, []byte("{}"))); got != "{}\n" {
		t.Errorf("AppendFrame newline: %q", got)
	}
	// A pretty-printed message still makes one line.
	if got := string(AppendFrame([]byte("a\n"), Newline, []byte("{\n  \"a\": 1\r\n}\n"))); got != "a\n{   \"a\": 1\r } \n" {
		t.Errorf("AppendFrame newline, pretty message: %q", got)
	}
}

func TestFramer_hugeLimits(t *testing.T) {
	lim := &Limits{MaxFrameBytes: math.MaxInt, MaxHeaderBytes: math.MaxInt, MaxHeaderLines: math.MaxInt}
	for _, f := range []Framing{Newline, Header} {
		fr := newFramer(strings.NewReader(string(AppendFrame(nil, f, []byte("[1]")))), f, lim, 4)
		if got, err := fr.Next(); err != nil || string(got) != "[1]" {
			t.Errorf("%s: %q, %v", f, got, err)
		}
	}
	if got, err := ReadBody(strings.NewReader("[1]"), math.MaxInt, nil); err != nil || string(got) != "[1]" {
		t.Errorf("ReadBody: %q, %v", got, err)
	}
}

func TestParseFraming(t *testing.T) {
	for _, f := range []Framing{Newline, Header} {
		g, err := ParseFraming(f.String())
		if err != nil || g != f {
			t.Errorf("ParseFraming(%q) = %v, %v", f.String(), g, err)
		}
	}
	if _, err := ParseFraming("lines"); err == nil {
		t.Error("ParseFraming(lines): no error")
	}
}

// frameLineReader produces n bytes of 'x' then a newline, then rest; it
// never holds the long line in memory.
type frameLineReader struct {
	n    int64
	rest []byte
}

func (r *frameLineReader) Read(p []byte) (int, error) {
	if r.n > 0 {
		k := int(min(int64(len(p)), r.n))
		for i := range p[:k] {
			p[i] = 'x'
		}
		r.n -= int64(k)
		return k, nil
	}
	if len(r.rest) == 0 {
		return 0, io.EOF
	}
	k := copy(p, r.rest)
	r.rest = r.rest[k:]
	return k, nil
}

func TestFramer_hugeLineSkippedUnbuffered(t *testing.T) {
	const maxFrame = 1 << 20
	rd := &frameLineReader{n: 64 << 20, rest: []byte("\n{\"ok\":true}\n")}
	fr := NewFramer(rd, Newline, &Limits{MaxFrameBytes: maxFrame}).(*newlineFramer)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := fr.Next()
	if !errors.Is(err, ErrFrameTooLarge) {
		t.Fatalf("first Next: %v, want ErrFrameTooLarge", err)
	}
	if fe := err.(*FrameError); fe.Offset != 0 || fe.RPCError().Code != CodeInvalidRequest {
		t.Errorf("error %v: offset %d, code %d", fe, fe.Offset, fe.RPCError().Code)
	}
	got, err := fr.Next()
	if err != nil || string(got) != `{"ok":true}` {
		t.Fatalf("second Next: %q, %v", got, err)
	}
	if _, err := fr.Next(); err != io.EOF {
		t.Fatalf("third Next: %v, want io.EOF", err)
	}
	runtime.ReadMemStats(&after)
	if c := fr.bufCap(); c > maxFrame+initialFrameBuf {
		t.Errorf("buffer grew to %d bytes, limit %d", c, maxFrame)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 4<<20 {
		t.Errorf("allocated %d bytes skipping a 64 MiB line", alloc)
	}
}

func TestFramer_hugeContentLengthRefusedWithoutAllocation(t *testing.T) {
	// A peer announcing 256 MiB: refused at once, the body discarded through
	// the 64 KiB buffer, and the next frame read.
	const body = 256 << 20
	head := "Content-Length: " + strconv.Itoa(body) + "\r\n\r\n"
	rd := io.MultiReader(strings.NewReader(head), &frameLineReader{n: body},
		strings.NewReader("Content-Length: 2\r\n\r\n{}"))
	fr := NewFramer(rd, Header, &Limits{MaxFrameBytes: 1 << 20}).(*headerFramer)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := fr.Next()
	if !errors.Is(err, ErrFrameTooLarge) {
		t.Fatalf("first Next: %v, want ErrFrameTooLarge", err)
	}
	got, err := fr.Next()
	if err != nil || string(got) != "{}" {
		t.Fatalf("second Next: %q, %v", got, err)
	}
	runtime.ReadMemStats(&after)
	if c := fr.bufCap(); c != maxFirstFrameBuf { // grown while discarding, given back once all was read for a first buffer of the most
		t.Errorf("buffer size %d, want %d", c, maxFirstFrameBuf)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<20 {
		t.Errorf("allocated %d bytes refusing a 256 MiB body", alloc)
	}

	// The largest length an int64 holds: refused before anything is read.
	fr2 := NewFramer(strings.NewReader("Content-Length: 9223372036854775807\r\n\r\n"), Header, nil).(*headerFramer)
	if _, err := fr2.Next(); !errors.Is(err, ErrFrameTooLarge) {
		t.Fatalf("max int64: %v", err)
	}
	if c := fr2.bufCap(); c != firstFrameBuf {
		t.Errorf("buffer size %d, want %d", c, firstFrameBuf)
	}
}

// TestFramer_bufferStartsSmallAndGrowsWhileBusy: a framer holds 512 bytes
// while its stream brings little at a time (an idle connection), and
// doubles to 64 KiB, no further, once reads fill the buffer (a busy one);
// every frame comes out whole either way.
func TestFramer_bufferStartsSmallAndGrowsWhileBusy(t *testing.T) {
	msg := `{"jsonrpc":"2.0","id":1,"method":"echo","params":{"text":"hello, world"}}` + "\n"
	for _, f := range []Framing{Newline, Header} {
		frame := string(AppendFrame(nil, f, []byte(strings.TrimSuffix(msg, "\n"))))
		// One frame per read: the buffer never fills.
		idle := NewFramer(iotest.OneByteReader(strings.NewReader(strings.Repeat(frame, 200))), f, nil)
		for range 200 {
			if _, err := idle.Next(); err != nil {
				t.Fatal(err)
			}
		}
		if c := idle.(interface{ bufCap() int }).bufCap(); c != firstFrameBuf {
			t.Errorf("%s, a frame at a time: buffer %d, want %d", f, c, firstFrameBuf)
		}
		// All at once: reads fill the buffer, which grows to 64 KiB.
		const n = 20000
		busy := NewFramer(strings.NewReader(strings.Repeat(frame, n)), f, nil)
		for i := range n {
			got, err := busy.Next()
			if err != nil || !strings.Contains(frame, string(got)) || len(got) < len(msg)-1 {
				t.Fatalf("%s, frame %d: %q %v", f, i, got, err)
			}
		}
		if c := busy.(interface{ bufCap() int }).bufCap(); c != initialFrameBuf {
			t.Errorf("%s, a busy stream: buffer %d, want %d", f, c, initialFrameBuf)
		}
	}
}

// frameRepeatLineReader produces line n times, then rest, without holding
// the whole stream in memory.
type frameRepeatLineReader struct {
	line []byte
	n    int
	off  int
	rest []byte
}

func (r *frameRepeatLineReader) Read(p []byte) (int, error) {
	k := 0
	for k < len(p) && r.n > 0 {
		c := copy(p[k:], r.line[r.off:])
		k += c
		if r.off += c; r.off == len(r.line) {
			r.off = 0
			r.n--
		}
	}
	c := copy(p[k:], r.rest)
	r.rest = r.rest[c:]
	if k+c == 0 {
		return 0, io.EOF
	}
	return k + c, nil
}

// TestFramer_headerLinesBounded: a header block of 10,000 lines is refused
// after MaxHeaderLines, having buffered no more than about
// MaxHeaderLines*MaxHeaderBytes, and the framer resynchronises.
func TestFramer_headerLinesBounded(t *testing.T) {
	pad := "X-Pad: " + strings.Repeat("p", 4000) + "\r\n"
	cases := []struct {
		name string
		line string
		lim  Limits
	}{
		{"short lines", "X-A: b\r\n", Limits{}},
		{"long lines", pad, Limits{}},
		{"long lines, small frames", pad, Limits{MaxFrameBytes: 16, MaxHeaderBytes: 8 << 10, MaxHeaderLines: 20}},
		{"very long lines", "X-Pad: " + strings.Repeat("p", 60<<10) + "\r\n",
			Limits{MaxFrameBytes: 16, MaxHeaderBytes: 64 << 10, MaxHeaderLines: 4}},
	}
	for _, c := range cases {
		rd := &frameRepeatLineReader{line: []byte(c.line), n: 10000,
			rest: []byte("Content-Length: 2\r\n\r\n{}Content-Length: 2\r\n\r\n[]")}
		fr := NewFramer(rd, Header, &c.lim).(*headerFramer)
		// After the error, resynchronising finds the Content-Length that
		// ends the long block, as it would after any bad header line.
		want := []string{"E:bad@0", "F:{}", "F:[]", "EOF"}
		if got := frameTrace(fr); !equalTrace(got, want) {
			t.Errorf("%s: got %q, want %q", c.name, got, want)
		}
		lim := c.lim.WithDefaults()
		if got, bound := fr.bufCap(), 2*(lim.MaxHeaderLines+1)*(lim.MaxHeaderBytes+2); got > max(bound, initialFrameBuf) {
			t.Errorf("%s: buffer grew to %d bytes, bound %d", c.name, got, bound)
		}
	}
}

func TestFramer_bufferGrowsForLargeFrame(t *testing.T) {
	big := strings.Repeat("y", 300<<10)
	for _, f := range []Framing{Newline, Header} {
		stream := AppendFrame(AppendFrame(nil, f, []byte(big)), f, []byte("z"))
		fr := NewFramer(iotest.HalfReader(bytes.NewReader(stream)), f, nil)
		got, err := fr.Next()
		if err != nil || string(got) != big {
			t.Fatalf("%s: large frame: %d bytes, %v", f, len(got), err)
		}
		if got, err := fr.Next(); err != nil || string(got) != "z" {
			t.Fatalf("%s: next: %q, %v", f, got, err)
		}
	}
}

// frameErrAfter returns data, then err (with the last bytes when withData).
type frameErrAfter struct {
	data     []byte
	err      error
	withData bool
}

func (r *frameErrAfter) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, r.err
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	if r.withData && len(r.data) == 0 {
		return n, r.err
	}
	return n, nil
}

func TestFramer_readerErrors(t *testing.T) {
	boom := errors.New("boom")
	cases := []struct {
		framing Framing
		in      string
		want    []string
	}{
		{Newline, "a\nb\nc", []string{"F:a", "F:b", "boom"}},
		{Newline, "a\n", []string{"F:a", "boom"}},
		{Header, "Content-Length: 1\r\n\r\n1Content-Length: 1\r\n\r\n", []string{"F:1", "boom"}},
	}
	for _, c := range cases {
		for _, withData := range []bool{false, true} {
			rd := &frameErrAfter{data: []byte(c.in), err: boom, withData: withData}
			fr := NewFramer(rd, c.framing, nil)
			if got := frameTrace(fr); !equalTrace(got, c.want) {
				t.Errorf("%s %q (withData %v): got %q, want %q", c.framing, c.in, withData, got, c.want)
			}
			if _, err := fr.Next(); err != boom {
				t.Errorf("error not sticky: %v", err)
			}
		}
	}
	// A reader that makes no progress.
	fr := NewFramer(frameStallReader{}, Newline, nil)
	if _, err := fr.Next(); err != io.ErrNoProgress {
		t.Errorf("stalled reader: %v, want io.ErrNoProgress", err)
	}
}

type frameStallReader struct{}

func (frameStallReader) Read([]byte) (int, error) { return 0, nil }

// frameStrictReader fails the test if read while the framer said a frame
// was buffered.
type frameStrictReader struct {
	t      *testing.T
	data   []byte
	forbid bool
}

func (r *frameStrictReader) Read(p []byte) (int, error) {
	if r.forbid {
		r.t.Fatal("Read called although Buffered reported true")
	}
	if len(r.data) == 0 {
		return 0, io.EOF
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

func TestFramer_buffered(t *testing.T) {
	cases := []struct {
		framing Framing
		in      string
		frames  int // whole frames after the first
		partial bool
	}{
		{Newline, "a\nb\n\n\nc\nd", 2, true},
		{Header, "Content-Length: 1\r\n\r\n1Content-Length: 1\r\n\r\n2\r\nContent-Length: 1\r\n\r\n3Content-Length: 2\r\n\r\n4", 2, true},
		{Header, "Content-Length: 1\r\n\r\n1X\r\n\r\nContent-Length: 1\r\n\r\n3", 2, false}, // the error counts
	}
	for _, c := range cases {
		rd := &frameStrictReader{t: t, data: []byte(c.in)}
		fr := NewFramer(rd, c.framing, nil)
		if fr.Buffered() {
			t.Fatalf("%q: Buffered before any read", c.in)
		}
		if _, err := fr.Next(); err != nil {
			t.Fatal(err)
		}
		for i := range c.frames {
			if !fr.Buffered() {
				t.Fatalf("%q: frame %d not reported buffered", c.in, i+1)
			}
			rd.forbid = true
			fr.Next()
			rd.forbid = false
		}
		if fr.Buffered() != false && c.partial {
			t.Fatalf("%q: a partial frame reported buffered", c.in)
		}
	}
}

func TestReadBody(t *testing.T) {
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"m"}`)
	for _, max := range []int{len(body), len(body) + 1, 0} {
		got, err := ReadBody(iotest.OneByteReader(bytes.NewReader(body)), max, nil)
		if err != nil || !bytes.Equal(got, body) {
			t.Errorf("max %d: %q, %v", max, got, err)
		}
	}
	// Too long: at most max+1 bytes read.
	rd := &frameLineReader{n: 1 << 40}
	buf := make([]byte, 0, 10)
	got, err := ReadBody(rd, 1000, buf)
	if !errors.Is(err, ErrFrameTooLarge) || len(got) != 0 {
		t.Fatalf("too long: %d bytes, %v", len(got), err)
	}
	if read := int64(1<<40) - rd.n; read != 1001 {
		t.Errorf("read %d bytes, want 1001", read)
	}
	// The buffer is reused.
	buf = make([]byte, 0, 100)
	got, _ = ReadBody(strings.NewReader("[1]"), 0, buf)
	if &got[0] != &buf[:1][0] {
		t.Error("buffer not reused")
	}
	// Errors pass through.
	boom := errors.New("boom")
	if _, err := ReadBody(&frameErrAfter{data: []byte("ab"), err: boom}, 0, nil); err != boom {
		t.Errorf("reader error: %v", err)
	}
	if got, err := ReadBody(strings.NewReader(""), 0, nil); err != nil || len(got) != 0 {
		t.Errorf("empty: %q, %v", got, err)
	}
}

func TestFrameInPlace_matchesAppendFrame(t *testing.T) {
	for _, f := range []Framing{Newline, Header} {
		for _, msg := range []string{`{}`, "{\n\"a\": [1,\n2]}", `{"jsonrpc":"2.0","id":1,"result":"` + strings.Repeat("x", 300) + `"}`} {
			prefix := []byte("earlier output;")
			want := AppendFrame(append([]byte(nil), prefix...), f, []byte(msg))
			buf := append(append([]byte(nil), prefix...), msg...)
			if got := FrameInPlace(buf, len(prefix), f); !bytes.Equal(got, want) {
				t.Errorf("%v %q:\n got %q\nwant %q", f, msg, got, want)
			}
		}
	}
}

// stepReader serves each step's bytes in reads that never cross into the
// next step (each step is one write of the peer), recording the room each
// read was offered.
type stepReader struct {
	steps  [][]byte
	offers []int
}

func (r *stepReader) Read(p []byte) (int, error) {
	if len(r.steps) == 0 {
		return 0, io.EOF
	}
	r.offers = append(r.offers, len(p))
	n := copy(p, r.steps[0])
	if r.steps[0] = r.steps[0][n:]; len(r.steps[0]) == 0 {
		r.steps = r.steps[1:]
	}
	return n, nil
}

// TestFramer_waitsWithTheSmallBufferAndGrowsStraightBack: once a busy
// stream has consumed all it read and its last read did not fill the
// buffer, it waits with a small buffer, not 64 KiB: 8 KiB, since its
// bursts outgrew 512 bytes; busy again, the first full read takes it
// straight back to the size it had.
func TestFramer_waitsWithTheSmallBufferAndGrowsStraightBack(t *testing.T) {
	msg := `{"jsonrpc":"2.0","id":1,"method":"echo","params":{"text":"hello, world"}}`
	for _, f := range []Framing{Newline, Header} {
		frame := AppendFrame(nil, f, []byte(msg))
		burst := bytes.Repeat(frame, 4000)
		r := &stepReader{steps: [][]byte{burst, frame, bytes.Clone(burst)}}
		fr := NewFramer(r, f, nil)
		for i := range 8001 {
			if got, err := fr.Next(); err != nil || string(got) != msg {
				t.Fatalf("%s, frame %d: %q %v", f, i, got, err)
			}
		}
		if _, err := fr.Next(); err != io.EOF {
			t.Fatalf("%s: %v at the end", f, err)
		}
		// The offers: growing to 64 KiB through the first burst; 8 KiB once
		// it is all read (the lone frame, then the wait for the second
		// burst); then at once nearly 64 KiB again, no doubling.
		grown := slices.IndexFunc(r.offers, func(o int) bool { return o > initialFrameBuf/2 })
		rest := r.offers[grown:]
		waited := slices.Index(rest, maxFirstFrameBuf)
		if waited < 0 {
			t.Fatalf("%s: reads offered %v: none waited with %d bytes", f, r.offers, maxFirstFrameBuf)
		}
		for _, o := range rest[waited:] {
			if o != maxFirstFrameBuf && o < initialFrameBuf-maxFirstFrameBuf {
				t.Fatalf("%s: reads offered %v: after the wait, %d bytes, want %d or straight back to %d", f, r.offers, o, maxFirstFrameBuf, initialFrameBuf)
			}
		}
		if largest := slices.Max(r.offers); largest > initialFrameBuf {
			t.Errorf("%s: a read was offered %d bytes, over %d", f, largest, initialFrameBuf)
		}
	}
}

// TestFramer_firstBufferGrowsToItsBursts: a stream whose bursts (batches
// of 6.5 KiB, say) outgrow the 512-byte first buffer waits from then on
// with one that holds a whole burst, so each is one read; a stream of
// small messages keeps 512 bytes (TestFramer_bufferStartsSmallAndGrowsWhileBusy).
func TestFramer_firstBufferGrowsToItsBursts(t *testing.T) {
	msg := `{"jsonrpc":"2.0","id":1,"method":"echo","params":["hello"]}`
	for _, f := range []Framing{Newline, Header} {
		frame := AppendFrame(nil, f, []byte(msg))
		burst := bytes.Repeat(frame, 100)
		r := &stepReader{}
		for range 5 {
			r.steps = append(r.steps, bytes.Clone(burst))
		}
		fr := NewFramer(r, f, nil)
		var offers []int
		for i := range 500 {
			if got, err := fr.Next(); err != nil || string(got) != msg {
				t.Fatalf("%s, frame %d: %q %v", f, i, got, err)
			}
			if i == 199 {
				offers = r.offers // the first bursts grow the buffer
				r.offers = nil
			}
		}
		if want := []int{maxFirstFrameBuf, maxFirstFrameBuf, maxFirstFrameBuf}; !slices.Equal(r.offers, want) {
			t.Errorf("%s: bursts of %d bytes after the first two (read with %v): reads offered %v, want %v", f, len(burst), offers, r.offers, want)
		}
	}
}
