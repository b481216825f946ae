package streamable

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"time"
)

// readAll reads every event of an event stream.
func readAll(t testing.TB, in string, max int) ([]sseEvent, time.Duration, error) {
	r := newSSEReader(strings.NewReader(in), max)
	var evs []sseEvent
	for {
		ev, err := r.Next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = nil
			}
			return evs, r.retry, err
		}
		ev.Data = bytes.Clone(ev.Data)
		evs = append(evs, ev)
	}
}

// sseCases are the reader's table, and the fuzzer's seeds.
var sseCases = []struct {
	name  string
	in    string
	want  []sseEvent
	retry time.Duration
}{
	{"one event", "id: 1\nevent: message\ndata: {}\n\n", []sseEvent{{"1", "message", []byte("{}")}}, 0},
	{"priming", "id: s.1\nretry: 1000\ndata: \n\n", []sseEvent{{"s.1", "", []byte{}}}, time.Second},
	{"CRLF and CR", "data: a\r\ndata: b\r\rdata: c\r\n\r\n", []sseEvent{{"", "", []byte("a\nb")}, {"", "", []byte("c")}}, 0},
	{"no space, comments", ":hello\ndata:x\n: more\ndata:  y\n\n", []sseEvent{{"", "", []byte("x\n y")}}, 0},
	{"field without colon", "data\n\n", []sseEvent{{"", "", []byte{}}}, 0},
	{"no data, no event", "id: 7\nevent: x\n\ndata: d\n\n", []sseEvent{{"7", "", []byte("d")}}, 0},
	{"id persists, NUL ignored", "id: a\ndata: 1\n\nid: b\x00c\ndata: 2\n\nid\ndata: 3\n\n",
		[]sseEvent{{"a", "", []byte("1")}, {"a", "", []byte("2")}, {"", "", []byte("3")}}, 0},
	{"bad retry ignored", "retry: 10x\nretry: 250\nretry: -1\ndata: r\n\n", []sseEvent{{"", "", []byte("r")}}, 250 * time.Millisecond},
	{"unknown fields", "foo: bar\ndata: k\n\n", []sseEvent{{"", "", []byte("k")}}, 0},
	{"byte order mark", "\xEF\xBB\xBFdata: b\n\n", []sseEvent{{"", "", []byte("b")}}, 0},
	{"unterminated event dropped", "data: done\n\ndata: cut", []sseEvent{{"", "", []byte("done")}}, 0},
	{"empty", "", nil, 0},
}

func TestSSEReader_followsTheParsingRules(t *testing.T) {
	for _, tc := range sseCases {
		t.Run(tc.name, func(t *testing.T) {
			evs, retry, err := readAll(t, tc.in, 1<<10)
			if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Fatal(err)
			}
			if len(evs) != len(tc.want) || retry != tc.retry {
				t.Fatalf("got %q (retry %v), want %q (retry %v)", evs, retry, tc.want, tc.retry)
			}
			for i := range evs {
				if evs[i].ID != tc.want[i].ID || evs[i].Name != tc.want[i].Name || !bytes.Equal(evs[i].Data, tc.want[i].Data) {
					t.Fatalf("event %d: got %q, want %q", i, evs[i], tc.want[i])
				}
			}
		})
	}
}

func TestSSEReader_boundsEventsAndLines(t *testing.T) {
	for _, in := range []string{
		"data: " + strings.Repeat("x", 100) + "\n\n",
		strings.Repeat("data: xxxxxxxxxx\n", 10) + "\n",
		"id: " + strings.Repeat("i", 200) + "\n",
	} {
		if _, _, err := readAll(t, in, 64); !errors.Is(err, errSSETooLarge) {
			t.Fatalf("%.20q…: got %v", in, err)
		}
	}
}

func TestAppendSSE_writesEveryLineAsADataField(t *testing.T) {
	got := string(appendSSE(nil, "s.2", "message", []byte("{\"a\":\r\n1,\r\"b\":\n2}")))
	want := "id: s.2\nevent: message\ndata: {\"a\":\ndata: 1,\ndata: \"b\":\ndata: 2}\n\n"
	if got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	if got := string(appendRetry(nil, 1500*time.Millisecond)); got != "retry: 1500\n\n" {
		t.Fatalf("retry: %q", got)
	}
}

// FuzzSSEReader: the reader never panics; what it reads, whole or a byte at
// a time, with a large and a small bound, is what the specification's
// algorithm (refReadSSE) reads; and what it reads, written out again with
// appendSSE, reads back the same.
func FuzzSSEReader(f *testing.F) {
	for _, tc := range sseCases {
		f.Add([]byte(tc.in))
	}
	f.Add([]byte("data: a\r"))
	f.Add([]byte("\r\n\r\n:\n\n"))
	f.Add([]byte("retry: 99999999999999\ndata: \xEF\xBB\xBF\r\r"))
	f.Fuzz(func(t *testing.T, in []byte) {
		checkSSERef(t, in, 1<<16)
		checkSSERef(t, in, 64)
		evs, _, err := readAll(t, string(in), 1<<16)
		if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, errSSETooLarge) {
			t.Fatalf("unexpected error %v", err)
		}
		var out []byte
		for _, ev := range evs {
			if strings.ContainsAny(ev.ID, "\r\n\x00") || strings.ContainsAny(ev.Name, "\r\n") || bytes.IndexByte(ev.Data, '\r') >= 0 {
				t.Fatalf("the reader let a line break through: %q", ev)
			}
			out = appendSSE(out, ev.ID, ev.Name, ev.Data)
		}
		again, _, err := readAll(t, string(out), 1<<17)
		if err != nil {
			t.Fatalf("re-encoded events do not read back: %v\n%q", err, out)
		}
		if len(again) != len(evs) {
			t.Fatalf("%d events read back as %d\n%q", len(evs), len(again), out)
		}
		for i := range evs {
			if again[i].ID != evs[i].ID || again[i].Name != evs[i].Name || !bytes.Equal(again[i].Data, evs[i].Data) {
				t.Fatalf("event %d: %q read back as %q", i, evs[i], again[i])
			}
		}
	})
}

func TestAccepts_readsMediaRangesAndQualities(t *testing.T) {
	for _, tc := range []struct {
		in        []string
		json, sse bool
	}{
		{nil, true, true},
		{[]string{"application/json, text/event-stream"}, true, true},
		{[]string{"Application/JSON;charset=utf-8"}, true, false},
		{[]string{"text/event-stream"}, false, true},
		{[]string{"text/*;q=0.5", "application/*"}, true, true},
		{[]string{"*/*"}, true, true},
		{[]string{"*/*;q=0"}, false, false},
		{[]string{"application/json; q=0.0, text/event-stream;q=0.001"}, false, true},
		{[]string{"text/html"}, false, false},
		{[]string{""}, false, false},
	} {
		if json, sse := accepts(tc.in); json != tc.json || sse != tc.sse {
			t.Errorf("%q: json %v sse %v, want %v %v", tc.in, json, sse, tc.json, tc.sse)
		}
	}
}
