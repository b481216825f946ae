package codec

import (
	"bytes"
	"io"
	"math"
)

// Header framing (LSP style): "Content-Length: N\r\n" and other header lines,
// an empty line, then N bytes of body.
//
// parse is a state machine over buffered bytes. States:
//
//	hHeaders  reading header lines: the block starts at r, its current line
//	          at r+line (nhdr lines done; n is the length, -1 unset)
//	hBody     headers done; the frame is buf[r:r+n] once n bytes are buffered
//	hDiscard  throwing away the left bytes of an oversized body
//	hResync   looking for the next "Content-Length:" after a bad header
//
// A header block stays buffered until its empty line, so that after a bad
// block the search for the next "Content-Length:" can start inside it: a
// body longer than its Content-Length leaves bytes without a line ending in
// front of the next header, which then looks like part of a bad line. A block
// is at most MaxHeaderLines lines of at most MaxHeaderBytes, so it needs at
// most (MaxHeaderLines+1)*(MaxHeaderBytes+2) bytes of buffer: the lines, and
// one more line that is recognised as too many or too long.

type hstate uint8

const (
	hHeaders hstate = iota
	hBody
	hDiscard
	hResync
)

// contentLength is the header name looked for while resynchronising, in
// lower case. Its only 'c' is its first byte, which the matcher relies on.
const contentLength = "content-length:"

type headerFramer struct {
	frameBuf
	state hstate
	ready bool        // buf[r:r+n] is the next frame
	pend  *FrameError // error to return from the next Next
	nhdr  int         // header lines read in this block
	line  int         // offset from r of the current header line
	n     int64       // Content-Length, or -1
	left  int64       // bytes still to discard in hDiscard
	match int         // bytes of contentLength matched in hResync
}

// reset prepares for the next header block.
func (f *headerFramer) reset() {
	f.state = hHeaders
	f.nhdr = 0
	f.line = 0
	f.n = -1
}

// bad records a malformed header block, which starts at r, and resumes the
// search for "Content-Length:" one byte after from, where the bad bytes
// begin: the start of the offending line, or of the block when its lines
// are well formed but none gave the length. The byte skipped makes progress
// when the offending line is itself a bad Content-Length.
func (f *headerFramer) bad(from int) bool {
	f.pend = &FrameError{Offset: f.base + int64(f.r), Err: ErrBadHeader}
	f.reset()
	f.r = from + 1
	f.scan = f.r
	f.state = hResync
	f.match = 0
	return true
}

// parse consumes buffered bytes and reports whether Next can return without
// reading: a body is ready or an error is pending.
func (f *headerFramer) parse() bool {
	if f.ready || f.pend != nil {
		return true
	}
	for {
		switch f.state {
		case hBody:
			if int64(f.w-f.r) < f.n {
				return false
			}
			f.ready = true
			return true

		case hDiscard:
			k := int(min(f.left, int64(f.w-f.r)))
			f.r += k
			f.scan = f.r
			f.left -= int64(k)
			if f.left > 0 {
				return false
			}
			f.reset()

		case hResync:
			if !f.resync() {
				return false
			}
			f.reset()

		default: // hHeaders
			if f.nhdr == 0 && f.fastHeader() {
				continue
			}
			ls := f.r + f.line // start of the current line
			i := bytes.IndexByte(f.buf[f.scan:f.w], '\n')
			if i < 0 {
				f.scan = f.w
				if f.w-ls > f.maxHdr+1 { // too long even if "\r\n" comes next
					return f.bad(ls)
				}
				return false
			}
			end := f.scan + i
			line := f.buf[ls:end]
			f.scan = end + 1
			if n := len(line); n > 0 && line[n-1] == '\r' {
				line = line[:n-1]
			}
			switch {
			case len(line) > f.maxHdr:
				return f.bad(ls)
			case len(line) > 0:
				f.nhdr++
				if f.nhdr > f.maxLines || !f.header(line) {
					return f.bad(ls)
				}
				f.line = f.scan - f.r
				continue
			case f.nhdr == 0: // empty line between messages
				f.r = f.scan
				continue
			}
			// The empty line ending the block.
			switch {
			case f.n < 0: // no line was a Content-Length: any may hide one
				return f.bad(f.r)
			case f.n > int64(f.max):
				f.pend = &FrameError{Offset: f.base + int64(f.r), Err: ErrFrameTooLarge}
				f.r = f.scan
				f.state = hDiscard
				f.left = f.n
				return true
			}
			f.r = f.scan
			f.state = hBody
		}
	}
}

// fastHeader takes the usual header block, "Content-Length: N\r\n\r\n"
// with N within the limit, in one step when it is all buffered. Anything
// else is left to the line-by-line path, which accepts this block too and
// to the same effect.
func (f *headerFramer) fastHeader() bool {
	const prefix = "Content-Length: "
	b := f.buf[f.r:f.w]
	if len(b) < len(prefix)+5 || string(b[:len(prefix)]) != prefix {
		return false
	}
	var n int64
	i := len(prefix)
	for end := min(len(b), len(prefix)+18); i < end && '0' <= b[i] && b[i] <= '9'; i++ {
		n = n*10 + int64(b[i]-'0')
	}
	if i == len(prefix) || i > f.maxHdr || n > int64(f.max) ||
		len(b) < i+4 || string(b[i:i+4]) != "\r\n\r\n" {
		return false
	}
	f.r += i + 4
	f.scan = f.r
	f.n = n
	f.nhdr = 1
	f.state = hBody
	return true
}

// header checks one header line and records a Content-Length.
func (f *headerFramer) header(line []byte) bool {
	colon := bytes.IndexByte(line, ':')
	if colon <= 0 {
		return false
	}
	name := line[:colon]
	if !hdrEqualFold(name, contentLength[:len(contentLength)-1]) {
		for _, c := range name {
			if !hdrToken[c] {
				return false
			}
		}
		return true // another header: ignored
	}
	n, ok := hdrParseLength(line[colon+1:])
	if !ok || (f.n >= 0 && f.n != n) {
		return false
	}
	f.n = n
	return true
}

// hdrParseLength parses a Content-Length value: optional blanks, decimal
// digits, optional blanks. It refuses signs, other bytes and values that do
// not fit an int64.
func hdrParseLength(v []byte) (int64, bool) {
	for len(v) > 0 && (v[0] == ' ' || v[0] == '\t') {
		v = v[1:]
	}
	for len(v) > 0 && (v[len(v)-1] == ' ' || v[len(v)-1] == '\t') {
		v = v[:len(v)-1]
	}
	if len(v) == 0 {
		return 0, false
	}
	var n int64
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, false
		}
		d := int64(c - '0')
		if n > (math.MaxInt64-d)/10 {
			return 0, false
		}
		n = n*10 + d
	}
	return n, true
}

// resync looks for "Content-Length:" in the buffered bytes after scan. On a
// match it moves r to the match and reports true; otherwise it discards what
// was searched except a partial match at the end (at most 14 bytes), so the
// buffer never grows while resynchronising.
func (f *headerFramer) resync() bool {
	buf := f.buf[:f.w]
	m := f.match
	for i := f.scan; i < len(buf); i++ {
		c := buf[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		switch {
		case c == contentLength[m]:
			m++
			if m == len(contentLength) {
				f.r = i + 1 - len(contentLength)
				f.scan = f.r
				f.match = 0
				return true
			}
		case c == 'c':
			m = 1
		default:
			m = 0
		}
	}
	f.match = m
	f.scan = f.w
	f.r = f.w - m
	return false
}

func (f *headerFramer) Next() ([]byte, error) {
	for !f.parse() {
		need := f.w - f.r + 1
		if f.state == hBody {
			need = int(f.n)
		}
		if err := f.fill(need); err != nil {
			return nil, f.end(err)
		}
	}
	if e := f.pend; e != nil {
		f.pend = nil
		return nil, e
	}
	body := f.buf[f.r : f.r+int(f.n) : f.r+int(f.n)]
	f.r += int(f.n)
	f.scan = f.r
	f.ready = false
	f.reset()
	return body, nil
}

// end maps the reader's error err, met before a whole frame was buffered.
func (f *headerFramer) end(err error) error {
	if err != io.EOF {
		return err
	}
	switch {
	case f.state == hResync:
		f.drop()
		return io.EOF
	case f.state == hHeaders && f.nhdr == 0 && f.r == f.w:
		return io.EOF
	}
	return io.ErrUnexpectedEOF
}

func (f *headerFramer) Buffered() bool {
	return f.parse() || f.err != nil
}

// hdrEqualFold reports whether b equals the lower-case ASCII string s,
// ignoring the case of b.
func hdrEqualFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != s[i] {
			return false
		}
	}
	return true
}

// hdrToken marks the bytes allowed in a header name (RFC 9110 tchar).
var hdrToken = func() (t [256]bool) {
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c] = true
		t[c-'a'+'A'] = true
	}
	for _, c := range "!#$%&'*+-.^_`|~" {
		t[c] = true
	}
	return t
}()
