package codec

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"unicode/utf8"
)

// FuzzScan checks that Scan never panics, that Valid agrees with
// encoding/json.Valid and with jsontext but for the documented differences
// (invalid UTF-8 inside strings, nesting deeper than MaxDepth; for
// jsontext those of fuzz_jsontext_test.go), that the canonical form of an
// accepted text means the same value to jsontext, and that the envelope
// spans agree with what encoding/json and jsontext read from the same
// bytes; and that each string loop of wideModes gives the same result
// (the same error at the same offset). Seeds: the package's tables and seeds, JSONTestSuite and the
// JSON-RPC specification's examples.
func FuzzScan(f *testing.F) {
	for _, c := range envelopeCases {
		f.Add([]byte(c.in))
	}
	for _, c := range scanSyntaxCases {
		f.Add([]byte(c.in))
	}
	for _, c := range scanValidCases {
		f.Add([]byte(c))
	}
	for _, c := range unescapeCases {
		f.Add([]byte(`{"jsonrpc":"2.0","method":"` + c.body + `","id":1}`))
	}
	for _, m := range mcpStream()[:40] {
		f.Add(m)
	}
	seeds, _ := filepath.Glob("testdata/seeds/*.json")
	for _, name := range seeds {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	addCorpusSeeds(f)
	s := NewScanner(nil)
	tight := NewScanner(&Limits{MaxDepth: 3, MaxBatch: 2})
	other := NewScanner(nil)
	f.Fuzz(func(t *testing.T, data []byte) {
		valid := s.Valid(data)
		msgs, batch, err := s.Scan(data)
		if (err == nil) != valid {
			t.Fatalf("Valid = %v but Scan error = %v", valid, err)
		}
		fuzzCheckWideModes(t, other, data, err)
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) || se.Offset < 0 || se.Offset > int64(len(data)) || msgs != nil || batch {
				t.Fatalf("Scan: %v, %d messages; want a *SyntaxError within the frame and nothing else", err, len(msgs))
			}
		}
		want := json.Valid(data) && utf8.Valid(data)
		if valid != want && !(want && errors.Is(err, ErrTooDeep) && fuzzDepth(data) > DefaultMaxDepth) {
			t.Fatalf("Valid = %v, encoding/json.Valid (and utf8.Valid) = %v; err %v", valid, want, err)
		}
		if tight.Valid(data) && !valid {
			t.Fatalf("a tighter scanner accepted what the default one refused")
		}
		tight.Scan(data)
		fuzzCheckJSONText(t, data, valid, err)
		if !valid {
			return
		}
		fuzzCheckMessages(t, data, msgs, batch)
	})
}

// fuzzCheckWideModes checks that s scans data with each string loop of
// wideModes as the default loop did (err).
func fuzzCheckWideModes(t *testing.T, s *Scanner, data []byte, err error) {
	t.Helper()
	defer setWide(defaultWide)
	for _, m := range wideModes() {
		setWide(m)
		if _, _, e := s.Scan(data); fmt.Sprint(e) != fmt.Sprint(err) {
			t.Fatalf("%s: Scan error %v; the default loop's %v", m.name, e, err)
		}
	}
}

// fuzzDepth returns the nesting depth of a valid JSON text.
func fuzzDepth(data []byte) int {
	depth, max, inString := 0, 0, false
	for i := 0; i < len(data); i++ {
		switch c := data[i]; {
		case inString && c == '\\':
			i++
		case c == '"':
			inString = !inString
		case inString:
		case c == '[' || c == '{':
			if depth++; depth > max {
				max = depth
			}
		case c == ']' || c == '}':
			depth--
		}
	}
	return max
}

// fuzzCheckMessages compares the scanner's messages with what encoding/json
// reads from the same valid frame.
func fuzzCheckMessages(t *testing.T, data []byte, msgs []Message, batch bool) {
	var elems []json.RawMessage
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	if trimmed[0] == '[' {
		if err := json.Unmarshal(data, &elems); err != nil {
			t.Fatal(err)
		}
		if len(elems) == 0 || len(elems) > DefaultMaxBatch {
			if batch || len(msgs) != 1 || msgs[0].Kind != KindInvalid {
				t.Fatalf("empty or over-long batch: batch %v, %d messages", batch, len(msgs))
			}
			return
		}
		if !batch || len(msgs) != len(elems) {
			t.Fatalf("batch of %d: batch %v, %d messages", len(elems), batch, len(msgs))
		}
	} else {
		if batch || len(msgs) != 1 {
			t.Fatalf("single value: batch %v, %d messages", batch, len(msgs))
		}
		elems = []json.RawMessage{trimmed}
	}
	for i, m := range msgs {
		fuzzCheckMessage(t, elems[i], m)
	}
}

func fuzzCheckMessage(t *testing.T, raw []byte, m Message) {
	span := func(name string, b []byte) {
		if b != nil && !json.Valid(b) {
			t.Fatalf("%s span %q is not a JSON value", name, b)
		}
	}
	span("ID", m.ID)
	span("Params", m.Params)
	span("Result", m.Result)
	span("ErrorObj", m.ErrorObj)
	if m.ID != nil && !bytes.ContainsAny(m.ID[:1], `"-0123456789n`) {
		t.Fatalf("ID %q is not a string, number or null", m.ID)
	}
	if m.Params != nil && m.Params[0] != '[' && m.Params[0] != '{' {
		t.Fatalf("Params %q is not structured", m.Params)
	}
	if m.MethodEscaped != bytes.ContainsRune(m.Method, '\\') {
		t.Fatalf("MethodEscaped = %v for %q", m.MethodEscaped, m.Method)
	}
	switch m.Kind {
	case KindInvalid, KindBadResponse:
		if m.Err == nil {
			t.Fatalf("%v without Err", m.Kind)
		}
	default:
		if m.Err != nil {
			t.Fatalf("%v with Err %v", m.Kind, m.Err)
		}
	}

	var obj map[string]json.RawMessage
	if raw[0] != '{' {
		if m.Kind != KindInvalid || m.Err != errNotObject {
			t.Fatalf("non-object %q classified %v %v", raw, m.Kind, m.Err)
		}
		return
	}
	if err := json.Unmarshal(raw, &obj); err != nil {
		t.Fatal(err)
	}
	fuzzCheckSpansJSONText(t, raw, m)
	if m.Err == errDupMember {
		return // the map kept only the last of the duplicates
	}
	method, hasMethod := obj["method"]
	id, hasID := obj["id"]
	switch m.Kind {
	case KindRequest, KindNotification:
		var name string
		if json.Unmarshal(method, &name) != nil {
			t.Fatalf("%v whose method %s is not a string", m.Kind, method)
		}
		if got := string(m.AppendMethod(nil)); got != name {
			t.Fatalf("method %q, encoding/json reads %q", got, name)
		}
		if v := obj["jsonrpc"]; string(v) != `"2.0"` {
			var s string
			if json.Unmarshal(v, &s) != nil || s != "2.0" {
				t.Fatalf("%v with jsonrpc %s", m.Kind, v)
			}
		}
		if p, ok := obj["params"]; ok && string(p) != "null" && !bytes.Equal(p, m.Params) {
			t.Fatalf("params %q, encoding/json reads %q", m.Params, p)
		}
		if m.Kind == KindRequest && !bytes.Equal(id, m.ID) || m.Kind == KindNotification && hasID {
			t.Fatalf("%v with id %q, encoding/json reads %q", m.Kind, m.ID, id)
		}
	case KindResult, KindError:
		if hasMethod || !bytes.Equal(id, m.ID) {
			t.Fatalf("%v: method %v, id %q vs %q", m.Kind, hasMethod, m.ID, id)
		}
		if m.Kind == KindResult && !bytes.Equal(obj["result"], m.Result) || m.Kind == KindError && !bytes.Equal(obj["error"], m.ErrorObj) {
			t.Fatalf("%v: spans differ from encoding/json", m.Kind)
		}
	case KindInvalid:
		if m.Err == errNoMethod && hasMethod {
			t.Fatalf("no method reported, but encoding/json finds %s", method)
		}
		if m.ID != nil && !bytes.Equal(id, m.ID) {
			t.Fatalf("invalid with id %q, encoding/json reads %q", m.ID, id)
		}
	}
}
