package codec

import (
	"bytes"
	"io"
)

// Newline framing (MCP stdio).
//
// Fast path: parse finds the next '\n' after scan with bytes.IndexByte
// (vectorised) and caches its index in nl; Next slices the line out. Slow
// path: no '\n' buffered, so Next reads more; a line that has already
// grown past MaxFrameBytes+1 bytes is reported at once and then discarded
// up to its '\n' (skip) without being buffered.

type newlineFramer struct {
	frameBuf
	nl   int         // index of the '\n' ending the next frame, or -1
	pend *FrameError // error to return from the next Next
	skip bool        // discarding the rest of an oversized line
}

// parse consumes skippable bytes already buffered and reports whether Next
// can return without reading: a line is ready (nl >= 0) or an error is
// pending.
func (f *newlineFramer) parse() bool {
	if f.nl >= 0 || f.pend != nil {
		return true
	}
	if f.skip {
		if !f.skipLine() {
			return false
		}
		f.skip = false
	}
	for {
		i := bytes.IndexByte(f.buf[f.scan:f.w], '\n')
		if i < 0 {
			f.scan = f.w
			// Even if the next byte is '\n' after a '\r', the line is too long.
			if f.w-f.r > f.max+1 {
				f.pend = &FrameError{Offset: f.base + int64(f.r), Err: ErrFrameTooLarge}
				f.drop()
				f.skip = true
				return true
			}
			return false
		}
		end := f.scan + i
		n := end - f.r
		if n > 0 && f.buf[end-1] == '\r' {
			n--
		}
		switch {
		case n == 0: // blank line
			f.r = end + 1
			f.scan = f.r
		case n > f.max:
			f.pend = &FrameError{Offset: f.base + int64(f.r), Err: ErrFrameTooLarge}
			f.r = end + 1
			f.scan = f.r
			return true
		default:
			f.nl = end
			return true
		}
	}
}

func (f *newlineFramer) Next() ([]byte, error) {
	for !f.parse() {
		if err := f.fill(f.w - f.r + 1); err != nil {
			return f.end(err)
		}
	}
	if e := f.pend; e != nil {
		f.pend = nil
		return nil, e
	}
	end := f.nl
	line := f.buf[f.r:end:end] // capped: appending to it must not clobber the buffer
	f.r = end + 1
	f.scan = f.r
	f.nl = -1
	if n := len(line); line[n-1] == '\r' { // parse never leaves an empty line
		line = line[:n-1]
	}
	return line, nil
}

// end handles the reader's error err when no whole line is buffered: at
// io.EOF a last unterminated line is a frame.
func (f *newlineFramer) end(err error) ([]byte, error) {
	if err != io.EOF {
		return nil, err
	}
	if f.skip {
		f.skip = false
		f.drop()
		return nil, io.EOF
	}
	line := f.buf[f.r:f.w:f.w]
	start := f.base + int64(f.r)
	f.r = f.w
	f.scan = f.w
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	switch {
	case len(line) == 0:
		return nil, io.EOF
	case len(line) > f.max:
		return nil, &FrameError{Offset: start, Err: ErrFrameTooLarge}
	}
	return line, nil
}

func (f *newlineFramer) Buffered() bool {
	return f.parse() || f.err != nil
}
