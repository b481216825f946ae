package codec

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// FuzzCanonical checks the canonical form and the token API it is built on.
// For any input: nothing panics, and AppendCanonical fails exactly when a
// Scanner refuses the input. For valid input: the canonical form is valid,
// is its own canonical form, and, when no object repeats a member name,
// means the same to encoding/json (numbers compared as written, with
// UseNumber); SkipValue and the iterators agree with encoding/json on where
// values end, and a walk into members' objects (Members.Enter, Leave) reads
// what Next reads.
func FuzzCanonical(f *testing.F) {
	for _, c := range canonicalCases {
		f.Add([]byte(c.in))
	}
	for _, c := range scanValidCases {
		f.Add([]byte(c))
	}
	for _, c := range memberCases {
		f.Add([]byte(c.in))
	}
	for _, c := range skipCases {
		f.Add([]byte(c.in))
	}
	seeds, _ := filepath.Glob("testdata/seeds/*.json")
	for _, name := range seeds {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	s := NewScanner(nil)
	var c Canonicalizer
	f.Fuzz(func(t *testing.T, data []byte) {
		valid := s.Valid(data)
		out, err := c.Append(nil, data)
		fuzzWalk(data) // must not panic, whatever data is
		entered, enterErr := fuzzEnter(data)
		if !valid {
			if err == nil {
				t.Fatalf("AppendCanonical accepted invalid %q: %s", data, out)
			}
			return
		}
		if err != nil {
			if errors.Is(err, ErrTooDeep) {
				return // the scanner's limit is the same; it cannot be here
			}
			t.Fatalf("AppendCanonical(%q): %v", data, err)
		}
		if !s.Valid(out) {
			t.Fatalf("canonical form %q of %q is not valid", out, data)
		}
		again, err := c.Append(nil, out)
		if err != nil || !bytes.Equal(again, out) {
			t.Fatalf("canonical form of %q is %q, %v; want itself", out, again, err)
		}
		if KindOf(data) == ValueObject {
			var it Members
			it.Reset(data)
			want, err := walkMembers(&it, false, 0)
			if err != nil || enterErr != nil || !reflect.DeepEqual(entered, want) {
				t.Fatalf("%q: Enter reads %q, %v; Next reads %q, %v", data, entered, enterErr, want, err)
			}
		}
		if end, err := SkipValue(data, 0); err != nil || skipWS(data, end) != len(data) {
			t.Fatalf("SkipValue(%q) = %d, %v; want the whole text", data, end, err)
		}
		if fuzzHasDuplicates(data) {
			return
		}
		if a, b := fuzzDecode(t, data), fuzzDecode(t, out); !reflect.DeepEqual(a, b) {
			t.Fatalf("encoding/json reads %q as %#v but its canonical form %q as %#v", data, a, out, b)
		}
	})
}

func fuzzDecode(t *testing.T, data []byte) any {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatalf("encoding/json: %v on %q", err, data)
	}
	return v
}

// fuzzWalk walks every container of data with the iterators, whether data is
// valid or not.
func fuzzWalk(data []byte) {
	switch KindOf(data) {
	case ValueObject:
		var it Members
		for it.Reset(data); it.Next(); {
			_ = it.Name(nil)
			fuzzWalk(it.Value())
		}
		_ = it.Err()
	case ValueArray:
		var it Elements
		for it.Reset(data); it.Next(); {
			fuzzWalk(it.Value())
		}
		_ = it.Err()
	case ValueString:
		_, _ = Unquote(data)
	}
}

// fuzzEnter walks data, when it begins as an object, into its members'
// objects (walkMembers with Enter), whether data is valid or not.
func fuzzEnter(data []byte) ([]string, error) {
	if KindOf(data) != ValueObject {
		return nil, nil
	}
	var it Members
	it.Reset(data)
	return walkMembers(&it, true, 0)
}

// fuzzHasDuplicates reports whether an object in the valid text data repeats
// a member name (after unescaping).
func fuzzHasDuplicates(data []byte) bool {
	switch KindOf(data) {
	case ValueObject:
		seen := map[string]bool{}
		var it Members
		for it.Reset(data); it.Next(); {
			name := string(it.Name(nil))
			if seen[name] || fuzzHasDuplicates(it.Value()) {
				return true
			}
			seen[name] = true
		}
	case ValueArray:
		var it Elements
		for it.Reset(data); it.Next(); {
			if fuzzHasDuplicates(it.Value()) {
				return true
			}
		}
	}
	return false
}
