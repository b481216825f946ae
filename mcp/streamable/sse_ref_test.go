package streamable

import (
	"bytes"
	"errors"
	"io"
	"math"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

// sseRef is the WHATWG HTML "event stream" interpretation (§9.2.6,
// "Interpreting an event stream"), written the plain way over the whole
// stream, for FuzzSSEReader to compare the reader with. It works on bytes:
// the specification decodes the stream as UTF-8 first, turning bad bytes
// into U+FFFD, but the reader leaves that to the JSON scanner, which
// refuses them (a documented difference, not compared).
//
// The reader's bound is part of what is compared, stated here as the
// reader's documentation states it: a line longer than max+16 bytes, or
// an event whose data (a "\n" counted after each data field) would exceed
// max bytes, ends the stream with errSSETooLarge at that line.
type sseRef struct {
	events []sseEvent
	retry  time.Duration
	end    string // "EOF", "UEOF" (the stream ends inside a line) or "big"
}

func refReadSSE(in []byte, max int) sseRef {
	var r sseRef
	in = bytes.TrimPrefix(in, []byte("\xEF\xBB\xBF")) // one leading BOM is skipped
	var (
		data      []byte
		hasData   bool
		eventType string
		lastID    string
	)
	for {
		// A line ends at CRLF, LF or CR; bytes after the last line end
		// are an incomplete line, discarded with the pending event.
		i := bytes.IndexAny(in, "\r\n")
		if i < 0 {
			switch {
			case len(in) > max+16:
				r.end = "big"
			case len(in) > 0:
				r.end = "UEOF"
			default:
				r.end = "EOF"
			}
			return r
		}
		line := in[:i]
		if len(line) > max+16 {
			r.end = "big"
			return r
		}
		if in[i] == '\r' && i+1 < len(in) && in[i+1] == '\n' {
			i++
		}
		in = in[i+1:]

		// The steps for one line.
		if len(line) == 0 { // dispatch the event
			if hasData {
				r.events = append(r.events, sseEvent{ID: lastID, Name: eventType, Data: bytes.TrimSuffix(data, []byte("\n"))})
			}
			data, hasData, eventType = nil, false, ""
			continue
		}
		if line[0] == ':' { // a comment
			continue
		}
		field, value := string(line), ""
		if name, v, ok := strings.Cut(string(line), ":"); ok {
			field, value = name, strings.TrimPrefix(v, " ")
		}
		switch field {
		case "event":
			eventType = value
		case "data":
			if len(data)+len(value)+1 > max {
				r.end = "big"
				return r
			}
			data = append(append(data, value...), '\n')
			hasData = true
		case "id":
			if !strings.Contains(value, "\x00") {
				lastID = value
			}
		case "retry":
			if value != "" && strings.Trim(value, "0123456789") == "" {
				r.retry = refRetry(value)
			}
		}
	}
}

// refRetry is a retry field's ASCII digits as milliseconds, saturating at
// the longest time.Duration.
func refRetry(digits string) time.Duration {
	const maxMs = math.MaxInt64 / int64(time.Millisecond)
	var ms int64
	for _, c := range digits {
		if ms = ms*10 + int64(c-'0'); ms > maxMs {
			return math.MaxInt64
		}
	}
	return time.Duration(ms) * time.Millisecond
}

// readAllFrom reads every event of an event stream from r, as readAll.
func readAllFrom(r io.Reader, max int) sseRef {
	sr := newSSEReader(r, max)
	var got sseRef
	for {
		ev, err := sr.Next()
		if err != nil {
			got.retry = sr.retry
			switch {
			case errors.Is(err, io.EOF):
				got.end = "EOF"
			case errors.Is(err, io.ErrUnexpectedEOF):
				got.end = "UEOF"
			case errors.Is(err, errSSETooLarge):
				got.end = "big"
			default:
				got.end = err.Error()
			}
			return got
		}
		ev.Data = bytes.Clone(ev.Data)
		got.events = append(got.events, ev)
	}
}

// checkSSERef fails t when the reader, reading in from a reader that
// returns it in one piece and from one returning a byte at a time, does
// not give what the specification's algorithm gives.
func checkSSERef(t *testing.T, in []byte, max int) {
	want := refReadSSE(in, max)
	for _, src := range []struct {
		name string
		r    io.Reader
	}{
		{"whole", bytes.NewReader(in)},
		{"bytewise", iotest.OneByteReader(bytes.NewReader(in))},
	} {
		got := readAllFrom(src.r, max)
		if got.end != want.end || got.retry != want.retry || len(got.events) != len(want.events) {
			t.Fatalf("max %d, %s: %d events, retry %v, end %s; the specification gives %d events, retry %v, end %s\ngot  %q\nwant %q",
				max, src.name, len(got.events), got.retry, got.end, len(want.events), want.retry, want.end, got.events, want.events)
		}
		for i := range got.events {
			g, w := got.events[i], want.events[i]
			if g.ID != w.ID || g.Name != w.Name || !bytes.Equal(g.Data, w.Data) {
				t.Fatalf("max %d, %s: event %d is %q, the specification gives %q", max, src.name, i, g, w)
			}
		}
	}
}

func TestSSEReader_followsTheSpecificationsAlgorithm(t *testing.T) {
	for _, tc := range sseCases {
		t.Run(tc.name, func(t *testing.T) {
			checkSSERef(t, []byte(tc.in), 1<<10)
			checkSSERef(t, []byte(tc.in), 4)
		})
	}
}

func TestSSEReader_saturatesAHugeRetry(t *testing.T) {
	for _, in := range []string{
		"retry: 9223372036855\n\n",           // just past the longest Duration in ms
		"retry: 18446744073709551617\n\n",    // past uint64
		"retry: 99999999999999999999999\n\n", // past the digits' own bound
	} {
		got := readAllFrom(strings.NewReader(in), 64)
		if got.retry != math.MaxInt64 {
			t.Errorf("%q: retry %v, want the longest Duration", in, got.retry)
		}
	}
}

func TestBackoff_boundsAServersRetry(t *testing.T) {
	for _, tc := range []struct {
		retry  time.Duration
		misses int
		want   time.Duration
	}{
		{0, 0, time.Second},
		{-time.Second, 1, 2 * time.Second},
		{2 * time.Second, 2, 8 * time.Second},
		{20 * time.Second, 1, 30 * time.Second},
		{time.Hour, 0, 30 * time.Second},
		{math.MaxInt64, 0, 30 * time.Second},
	} {
		if got := backoff(tc.retry, tc.misses); got != tc.want {
			t.Errorf("backoff(%v, %d) = %v, want %v", tc.retry, tc.misses, got, tc.want)
		}
	}
}
