package codec

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

const jsonTestSuiteDir = "../testdata/JSONTestSuite/test_parsing"

// suiteImplementationDefined is how the scanner decides each i_ case of
// JSONTestSuite (true: accepted). doc.go explains the choices; keep both in
// step.
var suiteImplementationDefined = map[string]bool{
	// Numbers are kept raw, never converted: any size is fine.
	"i_number_double_huge_neg_exp.json":       true,
	"i_number_huge_exp.json":                  true,
	"i_number_neg_int_huge_exp.json":          true,
	"i_number_pos_double_huge_exp.json":       true,
	"i_number_real_neg_overflow.json":         true,
	"i_number_real_pos_overflow.json":         true,
	"i_number_real_underflow.json":            true,
	"i_number_too_big_neg_int.json":           true,
	"i_number_too_big_pos_int.json":           true,
	"i_number_very_big_negative_int.json":     true,
	"i_object_key_lone_2nd_surrogate.json":    true,
	"i_structure_500_nested_arrays.json":      true, // 500 <= MaxDepth 512
	"i_string_incomplete_surrogate_pair.json": true,
	// Escaped surrogates that do not pair are grammatical: accepted.
	"i_string_1st_surrogate_but_2nd_missing.json":         true,
	"i_string_1st_valid_surrogate_2nd_invalid.json":       true,
	"i_string_incomplete_surrogate_and_escape_valid.json": true,
	"i_string_incomplete_surrogates_escape_valid.json":    true,
	"i_string_invalid_lonely_surrogate.json":              true,
	"i_string_invalid_surrogate.json":                     true,
	"i_string_inverted_surrogates_U+1D11E.json":           true,
	"i_string_lone_second_surrogate.json":                 true,
	// Raw bytes must be UTF-8: rejected.
	"i_string_UTF-8_invalid_sequence.json":         false,
	"i_string_UTF8_surrogate_U+D800.json":          false,
	"i_string_invalid_utf-8.json":                  false,
	"i_string_iso_latin_1.json":                    false,
	"i_string_lone_utf8_continuation_byte.json":    false,
	"i_string_not_in_unicode_range.json":           false,
	"i_string_overlong_sequence_2_bytes.json":      false,
	"i_string_overlong_sequence_6_bytes.json":      false,
	"i_string_overlong_sequence_6_bytes_null.json": false,
	"i_string_truncated-utf-8.json":                false,
	// UTF-16 and byte order marks: rejected.
	"i_string_UTF-16LE_with_BOM.json":         false,
	"i_string_utf16BE_no_BOM.json":            false,
	"i_string_utf16LE_no_BOM.json":            false,
	"i_structure_UTF-8_BOM_empty_object.json": false,
}

func TestScanner_JSONTestSuite(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(jsonTestSuiteDir, "*.json"))
	if err != nil || len(files) < 300 {
		t.Fatalf("JSONTestSuite: %d files, %v", len(files), err)
	}
	s := NewScanner(nil)
	seenI := 0
	for _, f := range files {
		name := filepath.Base(f)
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var want bool
			switch name[0] {
			case 'y':
				want = true
			case 'n':
				want = false
			case 'i':
				w, ok := suiteImplementationDefined[name]
				if !ok {
					t.Fatalf("no decision for %s in suiteImplementationDefined", name)
				}
				seenI++
				want = w
			}
			if got := s.Valid(data); got != want {
				t.Errorf("Valid(%q) = %v, want %v", clip(data), got, want)
			}
			msgs, _, err := s.Scan(data)
			if (err == nil) != want {
				t.Errorf("Scan(%q) err = %v, want valid=%v", clip(data), err, want)
			}
			if err != nil {
				var se *SyntaxError
				if !errors.As(err, &se) || se.Offset < 0 || se.Offset > int64(len(data)) || msgs != nil {
					t.Errorf("Scan(%q) = %v, %v: want a *SyntaxError in range and no messages", clip(data), msgs, err)
				}
			}
		})
	}
	if seenI != len(suiteImplementationDefined) {
		t.Errorf("saw %d i_ files, the table decides %d", seenI, len(suiteImplementationDefined))
	}
}

func clip(b []byte) []byte {
	if len(b) > 80 {
		return b[:80]
	}
	return b
}

// TestScanner_rejectsDeepNestingCheaply feeds the 100,000-deep files of
// JSONTestSuite and asserts they fail fast, with ErrTooDeep, allocating only
// the error.
func TestScanner_rejectsDeepNestingCheaply(t *testing.T) {
	for _, name := range []string{
		"n_structure_100000_opening_arrays.json",
		"n_structure_open_array_object.json",
	} {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(jsonTestSuiteDir, name))
			if err != nil {
				t.Fatal(err)
			}
			s := NewScanner(nil)
			_, _, err = s.Scan(data)
			if !errors.Is(err, ErrTooDeep) {
				t.Fatalf("Scan: %v, want ErrTooDeep", err)
			}
			// Fast means it stops where the nesting passes the limit,
			// within the first few bytes per level, not at the end of
			// the input (the speed itself is BenchmarkScanDeep's).
			var se *SyntaxError
			if !errors.As(err, &se) || se.Offset > 3*DefaultMaxDepth {
				t.Errorf("Scan stopped at %+v of %d bytes, want within %d", se, len(data), 3*DefaultMaxDepth)
			}
			n := testing.AllocsPerRun(10, func() {
				if _, _, err := s.Scan(data); !errors.Is(err, ErrTooDeep) || s.Valid(data) {
					t.Fatalf("Scan: %v; or Valid accepted it", err)
				}
			})
			if n > 4 {
				t.Errorf("a scan allocated %v objects; want only the errors", n)
			}
		})
	}
}

func TestScanner_depthLimit(t *testing.T) {
	nest := func(n int, open, close string) []byte {
		return []byte(strings.Repeat(open, n) + strings.Repeat(close, n))
	}
	tests := []struct {
		name  string
		max   int
		data  []byte
		valid bool
	}{
		{"arrays512", 0, nest(512, "[", "]"), true},
		{"arrays513", 0, nest(513, "[", "]"), false},
		{"objects512", 0, []byte(strings.Repeat(`{"a":`, 512) + "1" + strings.Repeat("}", 512)), true},
		{"objects513", 0, []byte(strings.Repeat(`{"a":`, 513) + "1" + strings.Repeat("}", 513)), false},
		{"mixed513", 0, []byte(strings.Repeat(`[{"a":`, 256) + "[1]" + strings.Repeat("}]", 256)), false},
		{"mixed512", 0, []byte(strings.Repeat(`[{"a":`, 256) + "1" + strings.Repeat("}]", 256)), true},
		{"max1Scalar", 1, []byte(`1`), true},
		{"max1Array", 1, []byte(`[1]`), true},
		{"max1Nested", 1, []byte(`[[]]`), false},
		{"max70", 70, nest(70, "[", "]"), true},
		{"max70Over", 70, nest(71, "[", "]"), false},
		{"max130Mixed", 130, []byte(strings.Repeat(`{"a":[`, 65) + strings.Repeat("]}", 65)), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewScanner(&Limits{MaxDepth: tt.max})
			if got := s.Valid(tt.data); got != tt.valid {
				t.Errorf("Valid = %v, want %v", got, tt.valid)
			}
			_, _, err := s.Scan(tt.data)
			if tt.valid && err != nil {
				t.Errorf("Scan: %v", err)
			}
			if !tt.valid && !errors.Is(err, ErrTooDeep) {
				t.Errorf("Scan: %v, want ErrTooDeep", err)
			}
		})
	}
}

func TestScanner_envelopeDepth(t *testing.T) {
	// The envelope object counts as one level, a batch as one more.
	s := NewScanner(&Limits{MaxDepth: 2})
	ok := []string{
		`{"jsonrpc":"2.0","method":"m","params":[1]}`,
		`[{"jsonrpc":"2.0","method":"m"}]`,
		`[[]]`,
	}
	bad := []string{
		`{"jsonrpc":"2.0","method":"m","params":[[1]]}`,
		`[{"jsonrpc":"2.0","method":"m","params":[]}]`,
		`[[[]]]`,
	}
	for _, in := range ok {
		if _, _, err := s.Scan([]byte(in)); err != nil {
			t.Errorf("Scan(%s): %v", in, err)
		}
	}
	for _, in := range bad {
		if _, _, err := s.Scan([]byte(in)); !errors.Is(err, ErrTooDeep) {
			t.Errorf("Scan(%s): %v, want ErrTooDeep", in, err)
		}
	}
}

// scanSyntaxCases are invalid frames with the sentinel and offset Scan must
// report.
var scanSyntaxCases = []struct {
	name   string
	in     string
	err    error
	offset int64
}{
	{"empty", ``, ErrSyntax, 0},
	{"onlySpace", " \n\t\r ", ErrSyntax, 5},
	{"trailingValue", `{} {}`, ErrTrailingData, 3},
	{"trailingComma", `[1,]`, ErrSyntax, 3},
	{"leadingZero", `01`, ErrTrailingData, 1},
	{"badLiteral", `[tru]`, ErrSyntax, 1},
	{"unterminatedString", `"abc`, ErrSyntax, 4},
	{"controlInString", "\"a\tb\"", ErrSyntax, 2},
	{"badEscape", `"a\x"`, ErrInvalidEscape, 2},
	{"badHexEscape", `"\u12g4"`, ErrInvalidEscape, 1},
	{"invalidUTF8", "\"ab\xffcd\"", ErrInvalidUTF8, 3},
	{"overlongUTF8", "\"\xc0\xaf\"", ErrInvalidUTF8, 1},
	{"surrogateUTF8", "\"\xed\xa0\x80\"", ErrInvalidUTF8, 1},
	{"truncatedUTF8", "\"\xe4\xb8\"", ErrInvalidUTF8, 1},
	{"invalidUTF8LongString", "\"0123456789abcdef\xf5\x80\x80\x80\"", ErrInvalidUTF8, 17},
	{"bom", "\xef\xbb\xbf{}", ErrSyntax, 0},
	{"missingColon", `{"a" 1}`, ErrSyntax, 5},
	{"numberMinus", `-`, ErrSyntax, 1},
	{"numberDot", `1.`, ErrSyntax, 2},
	{"numberExp", `1e+`, ErrSyntax, 3},
	{"envelopeBadMember", `{"jsonrpc":"2.0",1:2}`, ErrSyntax, 17},
	{"batchUnclosed", `[{"jsonrpc":"2.0","method":"m"}`, ErrSyntax, 31},
	{"batchInvalidElement", `[{"jsonrpc":"2.0","method":"sum","id":"1"},{"jsonrpc":"2.0","method"]`, ErrSyntax, 68},
	{"deepInEnvelope", `{"params":` + strings.Repeat("[", 600) + `}`, ErrTooDeep, 10 + 511},
}

func TestScanner_syntaxErrors(t *testing.T) {
	s := NewScanner(nil)
	for _, tt := range scanSyntaxCases {
		t.Run(tt.name, func(t *testing.T) {
			msgs, batch, err := s.Scan([]byte(tt.in))
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("Scan(%q) = %v, %v, %v; want a *SyntaxError", tt.in, msgs, batch, err)
			}
			if !errors.Is(err, tt.err) || se.Offset != tt.offset {
				t.Errorf("Scan(%q): %v (offset %d), want %v at %d", tt.in, err, se.Offset, tt.err, tt.offset)
			}
			if msgs != nil || batch {
				t.Errorf("Scan(%q) returned messages %v, batch %v with an error", tt.in, msgs, batch)
			}
			if s.Valid([]byte(tt.in)) {
				t.Errorf("Valid(%q) = true", tt.in)
			}
		})
	}
}

// scanValidCases are valid JSON texts beyond JSONTestSuite, exercising the
// word-at-a-time paths at every alignment.
var scanValidCases = []string{
	`""`,
	`"01234567"`,
	`"0123456\"89abcdef\\"`,
	`"é中文😀 and more text after the unicode to fill words"`,
	`"\n\t\r\b\f\/\\\"\u00e9\uD83D\uDE00\ud800"`,
	"  \n\t\r  [  1 ,\n  2\r\n]       ",
	`[0,-0,1.5,-1.5e10,1E-7,12345678901234567890,1.000000000000000000001e+400]`,
	`{"a":{"b":{"c":[true,false,null,{}]}},"":[]}`,
	"[\"\x7f\"]",
}

func TestScanner_agreesWithEncodingJSON(t *testing.T) {
	s := NewScanner(nil)
	var inputs []string
	inputs = append(inputs, scanValidCases...)
	for _, c := range scanSyntaxCases {
		inputs = append(inputs, c.in)
	}
	for _, c := range envelopeCases {
		inputs = append(inputs, c.in)
	}
	for _, in := range inputs {
		// Shift the text through every alignment of an 8-byte word.
		for pad := range 9 {
			data := []byte(strings.Repeat(" ", pad) + in)
			// The documented differences: encoding/json accepts invalid
			// UTF-8 inside strings and has no depth limit below 10000.
			want := json.Valid(data) && utf8.Valid(data) && !strings.Contains(in, strings.Repeat("[", 600))
			if got := s.Valid(data); got != want {
				t.Errorf("Valid(%q) = %v, want %v", data, got, want)
			}
		}
	}
}

// TestStringEnd_fastPath holds stringEnd to its fast path: it ends every
// plain string of up to 56 bytes itself, whatever follows the closing
// quote in the same word (more quotes among them), and stops a string at
// its first byte that is not plain. A slower scan would give the same
// answers; this catches the fast path falling through to it.
func TestStringEnd_fastPath(t *testing.T) {
	after := `,"x":"y","z":1,"w":"v"........`
	for n := 0; n <= 56; n++ {
		body := make([]byte, n)
		for k := range body {
			body[k] = 'a' + byte(k%26)
		}
		for tail := range 20 {
			d := append(append(append([]byte{'"'}, body...), '"'), after[tail:]...)
			if j := stringEnd(d, 1); j != n+2 {
				t.Fatalf("%q: stringEnd = %d, want %d", d, j, n+2)
			}
		}
		for k := range n {
			for _, c := range []byte{'\\', 0x1f, 0xc3} {
				d := append(append(append([]byte{'"'}, body...), '"'), after...)
				d[1+k] = c
				if j := stringEnd(d, 1); j != ^(1 + k) {
					t.Fatalf("%q: stringEnd = %d, want ^%d", d, j, 1+k)
				}
			}
		}
	}
}
