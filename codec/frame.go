package codec

import (
	"bytes"
	"errors"
	"io"
	"math"
	"strconv"
)

// Framing: the public face of the framers.
//
// The two framers (frame_newline.go, frame_header.go) share one read buffer
// (frame_buf.go). A frame is a sub-slice of that buffer: nothing is copied
// and, once the buffer has reached the size of the largest frame seen, Next
// allocates nothing. Each framer is a small state machine whose parse method
// moves over buffered bytes only; Next calls parse and reads more when parse
// needs it, and Buffered calls parse without reading.
//
// A bad frame (too large, malformed header) is reported as soon as it is
// recognised, before its bytes have all arrived; the framer then skips it on
// the next call without ever buffering it whole.

// Framer cuts a byte stream into frames. Next returns the next frame as a
// view into the framer's read buffer: valid until the next call to Next; copy
// it to keep it. A *FrameError is recoverable (the bad frame is skipped, call
// Next again); io.EOF is a clean end between frames; any other error ends
// the stream (io.ErrUnexpectedEOF for a stream cut inside a frame). Once Next
// has returned a non-recoverable error it returns the same error again.
// A Framer is not safe for concurrent use.
//
// Newline framing: one message per line. A '\r' before the '\n' is removed
// (CRLF accepted). Empty lines and lines holding only "\r" are skipped; a
// line of other white space is a frame (the scanner answers it with a parse
// error). A last line without a newline at the end of the stream is a frame.
// A line longer than MaxFrameBytes (not counting the line ending) gives a
// *FrameError wrapping ErrFrameTooLarge; the line is then discarded as it is
// read, up to its newline.
//
// Header framing: header lines "Name: value" (ending in "\r\n" or "\n") up to
// an empty line, then exactly Content-Length bytes of body. Names are matched
// case-insensitively; headers other than Content-Length (Content-Type…) are
// ignored. Empty lines before the first header line are skipped. A header
// line longer than MaxHeaderBytes, more than MaxHeaderLines header lines
// before one body, a line that is not "token: value", a Content-Length that
// is missing, not a plain decimal number, too large for an int64, or given
// twice with different values gives a *FrameError wrapping ErrBadHeader,
// with the offset of the header block. The framer then resynchronises: it
// resumes at the next occurrence of "Content-Length:" (ASCII
// case-insensitive) after the first byte of the offending line, or of the
// block when none of its lines was a Content-Length, wherever it is and not
// only at the start of a line. A body longer than its Content-Length, or
// garbage before a header, has no line ending before the next header, which
// so appears inside the bad line, or inside a line that looked like another
// header: it is found there. A Content-Length above MaxFrameBytes gives a
// *FrameError wrapping ErrFrameTooLarge, and exactly that many bytes are then
// read and discarded through the framer's own buffer. A Content-Length of 0
// gives an empty frame. The stream ending inside a header block or a body
// (even a skipped one) is io.ErrUnexpectedEOF; ending while resynchronising
// is io.EOF.
type Framer interface {
	Next() ([]byte, error)
	// Buffered reports whether the next call to Next will return without
	// reading (and so without blocking): a whole frame or a framing error is
	// buffered, or the reader has already reported its end or an error.
	// It never reads and never moves buffered bytes, so the frame returned
	// last stays valid; it may step over skippable bytes already buffered
	// (blank lines, part of a frame being skipped).
	Buffered() bool
}

// Framing delimits messages on a byte stream, in both directions. Newline
// and Header are built in; a transport with a framing of its own (a length
// prefix, a protocol's envelope) implements Framing and passes it wherever a
// Framing is taken. Implementations must be safe for concurrent use: the
// built-in ones are stateless values.
type Framing interface {
	// NewFramer returns a Framer cutting r into frames bounded by l (never
	// nil: limits with their defaults filled in).
	NewFramer(r io.Reader, l *Limits) Framer
	// AppendFrame appends msg, one JSON value, to dst as it goes on the
	// wire.
	AppendFrame(dst, msg []byte) []byte
	// FrameInPlace frames the message that buf holds from start on, in
	// place, as AppendFrame would have: for an encoder that appended the
	// message straight into an output buffer.
	FrameInPlace(buf []byte, start int) []byte
	// String names the framing ("newline", "header").
	String() string
}

// The built-in framings.
var (
	// Newline: one message per line (MCP stdio). CRLF accepted, blank
	// lines skipped.
	Newline Framing = newlineFraming{}
	// Header: LSP-style "Content-Length: N\r\n\r\n" before each message.
	Header Framing = headerFraming{}
)

// ParseFraming parses "newline" or "header".
func ParseFraming(s string) (Framing, error) {
	switch s {
	case "newline":
		return Newline, nil
	case "header":
		return Header, nil
	}
	return Newline, errors.New("codec: unknown framing " + strconv.Quote(s) + " (want \"newline\" or \"header\")")
}

// NewFramer returns a framer of kind f (nil: Newline) reading r, bounded by
// l (nil: defaults). The built-in framers hold 512 bytes while their
// stream is idle (up to 8 KiB once its bursts outgrow that; nothing at all
// over a socket or another ReadWaiter), grow to 64 KiB, pooled, while
// reads fill the buffer, and past that only when one frame needs more, up
// to a little over MaxFrameBytes.
func NewFramer(r io.Reader, f Framing, l *Limits) Framer {
	lim := l.WithDefaults()
	return orNewline(f).NewFramer(r, &lim)
}

// AppendFrame appends msg to dst framed as f (nil: Newline).
func AppendFrame(dst []byte, f Framing, msg []byte) []byte {
	return orNewline(f).AppendFrame(dst, msg)
}

// FrameInPlace frames buf[start:] in place as f (nil: Newline) would.
func FrameInPlace(buf []byte, start int, f Framing) []byte {
	return orNewline(f).FrameInPlace(buf, start)
}

func orNewline(f Framing) Framing {
	if f == nil {
		return Newline
	}
	return f
}

// newFramer is NewFramer for the built-in framings with the initial buffer
// size as a parameter, so that tests can exercise growth and compaction
// with small frames (0: the default, which starts at firstFrameBuf and
// grows to initialFrameBuf while reads fill it).
func newFramer(r io.Reader, f Framing, l *Limits, size int) Framer {
	lim := l.WithDefaults()
	if f == Header {
		h := &headerFramer{}
		h.init(r, &lim, size)
		h.reset()
		return h
	}
	n := &newlineFramer{nl: -1}
	n.init(r, &lim, size)
	return n
}

type newlineFraming struct{}

func (newlineFraming) String() string { return "newline" }

// NewFramer returns a newline framer.
func (f newlineFraming) NewFramer(r io.Reader, l *Limits) Framer {
	return newFramer(r, f, l, 0)
}

// AppendFrame appends msg and a newline. A '\n' inside msg (white space, in
// valid JSON: strings cannot hold one) is written as a space, so that a
// pretty-printed raw result still makes one line.
func (newlineFraming) AppendFrame(dst, msg []byte) []byte {
	n := len(dst)
	dst = append(dst, msg...)
	spaceNewlines(dst[n:])
	return append(dst, '\n')
}

func (newlineFraming) FrameInPlace(buf []byte, start int) []byte {
	spaceNewlines(buf[start:])
	return append(buf, '\n')
}

type headerFraming struct{}

func (headerFraming) String() string { return "header" }

// NewFramer returns a Content-Length framer.
func (f headerFraming) NewFramer(r io.Reader, l *Limits) Framer {
	return newFramer(r, f, l, 0)
}

// AppendFrame appends a Content-Length header and msg.
func (headerFraming) AppendFrame(dst, msg []byte) []byte {
	dst = append(dst, "Content-Length: "...)
	dst = strconv.AppendInt(dst, int64(len(msg)), 10)
	dst = append(dst, "\r\n\r\n"...)
	return append(dst, msg...)
}

// FrameInPlace moves the message once to make room for its header.
func (headerFraming) FrameInPlace(buf []byte, start int) []byte {
	var hdr [40]byte
	h := append(hdr[:0], "Content-Length: "...)
	h = strconv.AppendInt(h, int64(len(buf)-start), 10)
	h = append(h, "\r\n\r\n"...)
	buf = append(buf, h...) // grow by the header's length
	copy(buf[start+len(h):], buf[start:len(buf)-len(h)])
	copy(buf[start:], h)
	return buf
}

// spaceNewlines turns the newlines of a JSON message into spaces: outside
// strings they are only white space, and inside strings JSON has none, so
// the message stays one line with the same meaning.
func spaceNewlines(msg []byte) {
	for i := 0; ; {
		j := bytes.IndexByte(msg[i:], '\n')
		if j < 0 {
			return
		}
		msg[i+j] = ' '
		i += j + 1
	}
}

// ReadBody reads one whole body (HTTP, WebSocket) as a single frame, up to
// max bytes (0: DefaultMaxFrameBytes), appending to buf[:0] and returning it.
// A longer body returns a *FrameError wrapping ErrFrameTooLarge, having read
// no more than max+1 bytes; the buffer is then returned empty (buf[:0], grown
// or not) so that it can be reused. Any other read error is returned with
// the bytes read so far.
func ReadBody(r io.Reader, max int, buf []byte) ([]byte, error) {
	if max <= 0 {
		max = DefaultMaxFrameBytes
	}
	buf = buf[:0]
	max = min(max, math.MaxInt-1)
	limit := max + 1 // reading one byte more tells a body of max bytes from a longer one
	stalls := 0
	for {
		if len(buf) == cap(buf) {
			if len(buf) >= limit {
				break
			}
			buf = growBody(buf, limit)
		}
		end := min(cap(buf), limit)
		n, err := r.Read(buf[len(buf):end])
		if n < 0 || n > end-len(buf) {
			return buf, errBadRead
		}
		buf = buf[:len(buf)+n]
		if len(buf) > max {
			break
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
		if n == 0 {
			if stalls++; stalls >= maxStalls {
				return buf, io.ErrNoProgress
			}
		} else {
			stalls = 0
		}
	}
	return buf[:0], &FrameError{Offset: 0, Err: ErrFrameTooLarge}
}

// growBody returns buf with more capacity: at least 512 bytes, doubling,
// never past limit.
func growBody(buf []byte, limit int) []byte {
	n := max(2*cap(buf), 512)
	n = min(n, limit)
	nb := make([]byte, len(buf), n)
	copy(nb, buf)
	return nb
}
