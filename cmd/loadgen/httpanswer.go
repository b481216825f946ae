package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/mcpwire/mcpwire/codec"
)

// Reading an HTTP/1.1 answer off a lane: its head (RFC 9112 §4, §5),
// then its body, framed by Content-Length, chunked, or by the end of the
// connection (§6.3).

// head is what loadgen's client reads of an answer's head.
type head struct {
	status    int
	length    int64 // Content-Length; -1: none
	chunked   bool
	keepAlive bool   // HTTP/1.1 without Connection: close
	json, sse bool   // the Content-Type: application/json, text/event-stream
	session   []byte // Mcp-Session-Id (a view of lane.head)
}

var (
	errHeadTooLong = fmt.Errorf("an HTTP answer's head is longer than %d bytes", laneReadSize)
	errBadHead     = errors.New("a malformed HTTP answer")
	errBadChunk    = errors.New("a malformed chunked HTTP body")
)

// readHead reads the head of the next final answer (skipping interim 1xx
// ones) into l.head and parses it.
func (l *lane) readHead() (head, error) {
	for {
		raw, err := l.peekHead()
		if err != nil {
			return head{}, err
		}
		l.head = append(l.head[:0], raw...)
		l.br.Discard(len(raw))
		h, err := parseHead(l.head)
		if err != nil || h.status >= 200 {
			return h, err
		}
	}
}

// peekHead returns the next head, up to its blank line, as buffered (valid
// until the next read).
func (l *lane) peekHead() ([]byte, error) {
	for {
		b, _ := l.br.Peek(l.br.Buffered())
		if i := bytes.Index(b, []byte("\r\n\r\n")); i >= 0 {
			return b[:i+4], nil
		}
		// more is needed: wait for it
		switch _, err := l.br.Peek(len(b) + 1); {
		case err == bufio.ErrBufferFull:
			return nil, errHeadTooLong
		case err == io.EOF && len(b) > 0:
			return nil, io.ErrUnexpectedEOF
		case err != nil:
			return nil, err
		}
	}
}

// parseHead parses an answer's head: its status line and the fields
// loadgen's client reads.
func parseHead(b []byte) (head, error) {
	h := head{length: -1}
	line, rest := cutLine(b)
	if len(line) < 12 || string(line[:7]) != "HTTP/1." || line[8] != ' ' || (len(line) > 12 && line[12] != ' ') {
		return h, errBadHead
	}
	h.keepAlive = line[7] == '1'
	for _, c := range line[9:12] {
		if c < '0' || c > '9' {
			return h, errBadHead
		}
		h.status = h.status*10 + int(c-'0')
	}
	for {
		line, rest = cutLine(rest)
		if len(line) == 0 {
			break
		}
		i := bytes.IndexByte(line, ':')
		if i <= 0 {
			return h, errBadHead
		}
		name, value := line[:i], bytes.Trim(line[i+1:], " \t")
		switch {
		case foldEqual(name, "content-length"):
			n, err := strconv.ParseInt(string(value), 10, 64)
			if err != nil || n < 0 || (h.length >= 0 && n != h.length) {
				return h, errBadHead
			}
			h.length = n
		case foldEqual(name, "transfer-encoding"):
			if !foldEqual(value, "chunked") {
				return h, fmt.Errorf("an HTTP answer in Transfer-Encoding %q, which loadgen does not read", value)
			}
			h.chunked = true
		case foldEqual(name, "connection"):
			if foldEqual(value, "close") {
				h.keepAlive = false
			}
		case foldEqual(name, "content-type"):
			mt, _, _ := bytes.Cut(value, []byte(";"))
			mt = bytes.TrimSpace(mt)
			h.json = foldEqual(mt, "application/json")
			h.sse = foldEqual(mt, "text/event-stream")
		case foldEqual(name, "mcp-session-id"):
			h.session = value
		}
	}
	if h.chunked {
		h.length = -1 // Transfer-Encoding overrides Content-Length (RFC 9112 §6.3)
	}
	return h, nil
}

// foldEqual reports whether b is s (lower case) but for ASCII case.
func foldEqual(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range len(b) {
		c := b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != s[i] {
			return false
		}
	}
	return true
}

// readBody reads the body of the answer of h into body, up to the lane's
// stream's bound: complete is false when the body is longer (body then
// holds the bound plus one byte, and the connection cannot be reused) or
// ended with the connection.
func (l *lane) readBody(h *head, body *codec.Buffer) (complete bool, err error) {
	limit := l.s.bodyMax
	body.B = body.B[:0]
	switch {
	case h.status == 204 || h.status == 304:
		return true, nil
	case h.length >= 0:
		if h.length > int64(limit) {
			body.B, err = readN(l.br, body.B, limit+1)
			return false, err
		}
		body.B, err = readN(l.br, body.B, int(h.length))
		return err == nil, err
	case h.chunked:
		return l.readChunked(body, limit)
	}
	// The body ends with the connection (rare: the rare path serves it).
	h.keepAlive = false
	rest, err := io.ReadAll(io.LimitReader(l.br, int64(limit)+1))
	body.B = append(body.B, rest...)
	return false, err
}

// readChunked reads a chunked body (RFC 9112 §7.1), its trailer dropped.
func (l *lane) readChunked(body *codec.Buffer, limit int) (complete bool, err error) {
	for {
		line, err := l.br.ReadSlice('\n')
		if err != nil {
			return false, chunkErr(err)
		}
		size, ok := chunkSize(line)
		if !ok {
			return false, errBadChunk
		}
		if size == 0 {
			break
		}
		if size > int64(limit-len(body.B)) {
			body.B, err = readN(l.br, body.B, limit+1-len(body.B))
			return false, chunkErr(err)
		}
		if body.B, err = readN(l.br, body.B, int(size)); err != nil {
			return false, chunkErr(err)
		}
		if line, err = l.br.ReadSlice('\n'); err != nil || len(bytes.TrimRight(line, "\r\n")) != 0 {
			return false, errBadChunk
		}
	}
	for { // the trailer, up to its blank line
		line, err := l.br.ReadSlice('\n')
		if err != nil {
			return false, chunkErr(err)
		}
		if len(bytes.TrimRight(line, "\r\n")) == 0 {
			return true, nil
		}
	}
}

// chunkErr names what broke a chunked body.
func chunkErr(err error) error {
	if err == bufio.ErrBufferFull || err == io.EOF {
		return errBadChunk
	}
	return err
}

// chunkSize reads a chunk's size line: hex digits, then extensions.
func chunkSize(line []byte) (int64, bool) {
	line = bytes.TrimRight(line, "\r\n")
	if i := bytes.IndexByte(line, ';'); i >= 0 {
		line = line[:i]
	}
	line = bytes.TrimRight(line, " \t")
	if len(line) == 0 || len(line) > 15 {
		return 0, false
	}
	var n int64
	for _, c := range line {
		switch {
		case '0' <= c && c <= '9':
			n = n<<4 | int64(c-'0')
		case 'a' <= c && c <= 'f':
			n = n<<4 | int64(c-'a'+10)
		case 'A' <= c && c <= 'F':
			n = n<<4 | int64(c-'A'+10)
		default:
			return 0, false
		}
	}
	return n, true
}

// readN appends n bytes read from br to dst.
func readN(br *bufio.Reader, dst []byte, n int) ([]byte, error) {
	off := len(dst)
	dst = slices.Grow(dst, n)[:off+n]
	k, err := io.ReadFull(br, dst[off:])
	return dst[:off+k], err
}
