package codec

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// The scanner against jsontext (github.com/go-json-experiment/json, the
// reference STYLE.md names), the second reference of FuzzScan beside
// encoding/json.
//
// Documented differences, each the scanner's choice stated in doc.go:
//   - Duplicate member names: jsontext refuses them by default; the scanner
//     accepts the JSON text (a duplicated envelope member makes the message
//     invalid, -32600, which is not a parse error). Compared with
//     AllowDuplicateNames(true).
//   - Escaped surrogates that do not pair ("\ud800"): jsontext refuses them
//     unless AllowInvalidUTF8(true), which would also let raw bytes that
//     are not UTF-8 through; the scanner accepts the escapes (as
//     encoding/json does) and refuses the raw bytes (as jsontext does). So
//     the scanner may accept what jsontext refuses only when jsontext with
//     AllowInvalidUTF8(true) accepts it and the raw bytes are UTF-8.
//   - Depth: the scanner refuses nesting deeper than MaxDepth (512 by
//     default) with ErrTooDeep; jsontext's own bound is 10000.

// escapedSurrogate matches an escape of a UTF-16 surrogate (\uD800 to
// \uDFFF).
var escapedSurrogate = regexp.MustCompile(`\\u[dD][89abcdefABCDEF]`)

// fuzzCheckJSONText fails t when the scanner's decision on data (valid,
// with err when not) differs from jsontext's but for the differences
// above, and, when both accept and no object repeats a name, when the
// scanner's canonical form (AppendCanonical) does not mean the same value
// to jsontext: both canonicalised by jsontext (RFC 8785) must be equal.
func fuzzCheckJSONText(t *testing.T, data []byte, valid bool, err error) {
	dups := jsontext.AllowDuplicateNames(true)
	ref := jsontext.Value(data).IsValid(dups)
	switch {
	case valid && !ref:
		if !jsontext.Value(data).IsValid(dups, jsontext.AllowInvalidUTF8(true)) || !utf8.Valid(data) || !escapedSurrogate.Match(data) {
			t.Fatalf("the scanner accepts what jsontext refuses, and not for an escaped lone surrogate")
		}
		return
	case !valid && ref:
		if !errors.Is(err, ErrTooDeep) || fuzzDepth(data) <= DefaultMaxDepth {
			t.Fatalf("the scanner refuses (%v) what jsontext accepts", err)
		}
		return
	case !valid:
		return
	}

	canon, cerr := AppendCanonical(nil, data)
	if cerr != nil {
		t.Fatalf("AppendCanonical refuses a valid text: %v", cerr)
	}
	want := jsontext.Value(bytes.Clone(data))
	if want.Canonicalize() != nil {
		// A repeated name, or a number beyond float64 (RFC 8785 formats
		// numbers as IEEE doubles): no reference value to compare with.
		return
	}
	got := jsontext.Value(canon)
	if err := got.Canonicalize(); err != nil {
		t.Fatalf("the canonical form %q of a text jsontext canonicalises is refused: %v", canon, err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("canonical forms differ in meaning\nscanner  %q\njsontext %q", got, want)
	}
}

// fuzzCheckSpansJSONText fails t when the spans the scanner recorded for
// the envelope members of the object raw (ID, Params, Result, ErrorObj)
// are not, byte for byte, the values jsontext reads for those members.
// Names are compared unescaped; a duplicated member is left out (the
// scanner keeps no span it can vouch for then).
func fuzzCheckSpansJSONText(t *testing.T, raw []byte, m Message) {
	members, ok := jsontextMembers(raw)
	if !ok {
		t.Fatalf("jsontext cannot read the object %q the scanner accepted", raw)
	}
	check := func(name string, span []byte) {
		vals := members[name]
		if len(vals) != 1 {
			return
		}
		if span != nil && !bytes.Equal(span, vals[0]) {
			t.Fatalf("%s span %q, jsontext reads %q", name, span, vals[0])
		}
	}
	check("id", m.ID)
	check("params", m.Params)
	check("result", m.Result)
	check("error", m.ErrorObj)
	if m.Kind == KindRequest || m.Kind == KindNotification {
		var name string
		if err := json.Unmarshal(members["method"][0], &name); err != nil {
			t.Fatalf("%v whose method %s is not a string", m.Kind, members["method"][0])
		}
		if got := string(m.AppendMethod(nil)); got != name {
			t.Fatalf("method %q, jsontext reads %q", got, name)
		}
	}
}

// jsontextMembers reads a JSON object with jsontext: each member name,
// unescaped, with the raw values it was given, in order. It allows
// duplicate names and escaped lone surrogates (as the scanner does).
func jsontextMembers(raw []byte) (map[string][][]byte, bool) {
	dec := jsontext.NewDecoder(bytes.NewReader(raw), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '{' {
		return nil, false
	}
	members := map[string][][]byte{}
	for dec.PeekKind() == '"' {
		tok, err := dec.ReadToken()
		if err != nil {
			return nil, false
		}
		name := tok.String() // before ReadValue, which voids tok
		v, err := dec.ReadValue()
		if err != nil {
			return nil, false
		}
		members[name] = append(members[name], bytes.Clone(v))
	}
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '}' {
		return nil, false
	}
	return members, true
}

// addCorpusSeeds adds the repository's test vectors to f: every file of
// JSONTestSuite's test_parsing, and each request and response of the
// JSON-RPC 2.0 specification's examples.
func addCorpusSeeds(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(jsonTestSuiteDir, "*.json"))
	if len(files) == 0 {
		f.Fatalf("no JSONTestSuite files in %s", jsonTestSuiteDir)
	}
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	raw, err := os.ReadFile("../testdata/jsonrpc/spec-examples.json")
	if err != nil {
		f.Fatal(err)
	}
	var cases []struct {
		Request  string
		Response *string
	}
	if err := json.Unmarshal(raw, &cases); err != nil {
		f.Fatal(err)
	}
	for _, c := range cases {
		f.Add([]byte(c.Request))
		if c.Response != nil {
			f.Add([]byte(*c.Response))
		}
	}
}
