package codec

import "io"

// CONTRACT STUB — to be replaced by the real framers (helper: framing).

// Framer cuts a byte stream into frames. Next returns the next frame as a
// view into the framer's read buffer: valid until the next call to Next; copy
// it to keep it. A *FrameError is recoverable (the bad frame was skipped, call
// Next again); io.EOF is a clean end between frames; any other error ends
// the stream (io.ErrUnexpectedEOF for a stream cut inside a frame).
// A Framer is not safe for concurrent use.
type Framer interface {
	Next() ([]byte, error)
	// Buffered reports whether a whole frame is already buffered, so the
	// next call to Next will not read (and so will not block).
	Buffered() bool
}

// Framing names a way to delimit messages on a stream.
type Framing uint8

const (
	// Newline: one message per line (MCP stdio). CRLF accepted, blank lines skipped.
	Newline Framing = iota
	// Header: LSP-style "Content-Length: N\r\n\r\n" before each message.
	Header
)

// String returns "newline" or "header".
func (f Framing) String() string {
	if f == Header {
		return "header"
	}
	return "newline"
}

// ParseFraming parses "newline" or "header".
func ParseFraming(s string) (Framing, error) { panic("not implemented") }

// NewFramer returns a framer of kind f reading r, bounded by l (nil: defaults).
func NewFramer(r io.Reader, f Framing, l *Limits) Framer { panic("not implemented") }

// AppendFrame appends msg to dst framed as f (a trailing newline, or a
// Content-Length header before it).
func AppendFrame(dst []byte, f Framing, msg []byte) []byte { panic("not implemented") }

// ReadBody reads one whole body (HTTP, WebSocket) as a single frame, up to
// max bytes (0: DefaultMaxFrameBytes), appending to buf[:0] and returning it.
// A longer body returns a *FrameError wrapping ErrFrameTooLarge, having read
// no more than max+1 bytes.
func ReadBody(r io.Reader, max int, buf []byte) ([]byte, error) { panic("not implemented") }
