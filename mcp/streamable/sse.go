package streamable

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"math"
	"strconv"
	"time"
)

// Server-sent events (the WHATWG HTML "event stream" format), as far as
// MCP's HTTP transports use them: the server writes events of one JSON-RPC
// message each, with ids to resume from; the client reads them.
//
// The reader follows the specification's parsing rules: lines end with
// CRLF, LF or CR; a leading byte order mark is skipped; a line starting
// with a colon is a comment; a field's value loses one leading space; an
// id containing NUL is ignored; retry takes ASCII digits only; a blank line
// dispatches the event if it had at least one data field, and the last id
// seen is kept from event to event. An event's data over the reader's
// limit is an error.

// sseEvent is one server-sent event.
type sseEvent struct {
	ID   string // the last event id as of this event ("" when none was ever set)
	Name string // the event type; "" means "message"
	Data []byte // the data fields joined with "\n"
}

// appendSSE appends one event. Data is written one data field per line
// (CR, LF and CRLF all end lines), so any bytes survive: a JSON message
// comes back equivalent (its raw line breaks are white space). id and name
// must hold no line break; id is written even when empty, which resets
// the client's last event id, and name only when set.
func appendSSE(dst []byte, id, name string, data []byte) []byte {
	dst = append(dst, "id: "...)
	dst = append(dst, id...)
	dst = append(dst, '\n')
	return appendSSEBody(dst, name, data)
}

// appendEvent appends event n of a stream as a "message": its id is
// "<stream>.<n>" (eventID), written without making a string of it.
func appendEvent(dst []byte, stream string, n uint64, data []byte) []byte {
	dst = appendEventIDField(dst, stream, n)
	return appendSSEBody(dst, "message", data)
}

// appendEventIDField appends the id field of event n of a stream.
func appendEventIDField(dst []byte, stream string, n uint64) []byte {
	dst = append(dst, "id: "...)
	dst = append(dst, stream...)
	dst = append(dst, '.')
	dst = strconv.AppendUint(dst, n, 10)
	return append(dst, '\n')
}

// appendSSEBody appends an event's type (if set) and data fields, and the
// blank line that ends it.
func appendSSEBody(dst []byte, name string, data []byte) []byte {
	if name != "" {
		dst = append(dst, "event: "...)
		dst = append(dst, name...)
		dst = append(dst, '\n')
	}
	for {
		i := bytes.IndexAny(data, "\r\n")
		dst = append(dst, "data: "...)
		if i < 0 {
			dst = append(dst, data...)
			break
		}
		dst = append(dst, data[:i]...)
		dst = append(dst, '\n')
		if data[i] == '\r' && i+1 < len(data) && data[i+1] == '\n' {
			i++
		}
		data = data[i+1:]
	}
	return append(dst, '\n', '\n')
}

// appendRetry appends a retry field alone: no event is dispatched, the
// client's reconnection delay is set.
func appendRetry(dst []byte, d time.Duration) []byte {
	dst = append(dst, "retry: "...)
	dst = strconv.AppendInt(dst, d.Milliseconds(), 10)
	return append(dst, '\n', '\n')
}

// errSSETooLarge is returned by sseReader.Next for an event whose data
// exceeds the reader's limit.
var errSSETooLarge = errors.New("mcp: server-sent event too large")

// sseReader reads events from an event stream.
type sseReader struct {
	br     *bufio.Reader
	max    int           // bound on one event's data and one line
	lastID string        // the last event id buffer
	retry  time.Duration // the last retry field, 0 if none
	data   []byte
	name   string
	line   []byte
	bom    bool // the start has been checked for a byte order mark
	cr     bool // the last line ended with CR
}

func newSSEReader(r io.Reader, max int) *sseReader {
	return &sseReader{br: bufio.NewReaderSize(r, 4096), max: max}
}

// Next returns the next event. Its Data is valid until the next call. At
// the end of the stream it returns io.EOF (an event not terminated by a
// blank line is dropped, as the specification says); any other error is
// the underlying reader's or errSSETooLarge.
func (r *sseReader) Next() (sseEvent, error) {
	r.data = r.data[:0]
	hasData := false
	r.name = ""
	for {
		line, err := r.readLine()
		if err != nil {
			return sseEvent{}, err
		}
		if len(line) == 0 { // dispatch
			if !hasData {
				r.name = ""
				continue
			}
			d := r.data
			if len(d) > 0 && d[len(d)-1] == '\n' {
				d = d[:len(d)-1]
			}
			return sseEvent{ID: r.lastID, Name: r.name, Data: d}, nil
		}
		if line[0] == ':' {
			continue
		}
		field, value := line, []byte(nil)
		if i := bytes.IndexByte(line, ':'); i >= 0 {
			field, value = line[:i], line[i+1:]
			if len(value) > 0 && value[0] == ' ' {
				value = value[1:]
			}
		}
		switch string(field) {
		case "data":
			if len(r.data)+len(value)+1 > r.max {
				return sseEvent{}, errSSETooLarge
			}
			r.data = append(append(r.data, value...), '\n')
			hasData = true
		case "event":
			r.name = string(value)
		case "id":
			if bytes.IndexByte(value, 0) < 0 {
				r.lastID = string(value)
			}
		case "retry":
			if ms, ok := digits(value); ok {
				r.retry = retryDelay(ms)
			}
		}
	}
}

// digits parses a non-empty run of ASCII digits, saturating.
func digits(b []byte) (int64, bool) {
	if len(b) == 0 {
		return 0, false
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		if n < (1<<62)/10 {
			n = n*10 + int64(c-'0')
		}
	}
	return n, true
}

// retryDelay returns ms milliseconds, saturating at the longest Duration (a
// plain product wraps past about 292 years' worth, to a negative or a
// short delay).
func retryDelay(ms int64) time.Duration {
	if ms > math.MaxInt64/int64(time.Millisecond) {
		return math.MaxInt64
	}
	return time.Duration(ms) * time.Millisecond
}

// readLine returns the next line without its end, valid until the next
// call; a line longer than the limit is errSSETooLarge.
func (r *sseReader) readLine() ([]byte, error) {
	r.line = r.line[:0]
	if !r.bom {
		r.bom = true
		if p, err := r.br.Peek(3); err == nil && p[0] == 0xEF && p[1] == 0xBB && p[2] == 0xBF {
			r.br.Discard(3)
		}
	}
	for {
		if r.br.Buffered() == 0 {
			if _, err := r.br.Peek(1); err != nil {
				if err == io.EOF && len(r.line) > 0 {
					err = io.ErrUnexpectedEOF // a line cut short: its event is incomplete
				}
				return nil, err
			}
		}
		buf, _ := r.br.Peek(r.br.Buffered())
		if r.cr { // the last line ended with CR: a following LF belongs to it
			r.cr = false
			if buf[0] == '\n' {
				r.br.Discard(1)
				continue
			}
		}
		i := bytes.IndexAny(buf, "\r\n")
		if i < 0 {
			i = len(buf)
		}
		if len(r.line)+i > r.max+16 {
			return nil, errSSETooLarge
		}
		r.line = append(r.line, buf[:i]...)
		if i == len(buf) {
			r.br.Discard(i)
			continue
		}
		r.cr = buf[i] == '\r'
		r.br.Discard(i + 1)
		return r.line, nil
	}
}
