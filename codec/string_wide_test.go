package codec

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// scanStringRef is the byte-at-a-time reference for scanStringSlow: the
// same results (index, escapes seen, error and its offset), written
// plainly, with unicode/utf8 deciding what is valid UTF-8.
func scanStringRef(d []byte, i int) (int, bool, error) {
	esc := false
	for i < len(d) {
		switch c := d[i]; {
		case c == '"':
			return i + 1, esc, nil
		case c == '\\':
			esc = true
			switch {
			case i+1 >= len(d):
				return len(d), esc, ErrSyntax
			case strings.IndexByte(`"\/bfnrt`, d[i+1]) >= 0:
				i += 2
			case d[i+1] != 'u':
				return i, esc, ErrInvalidEscape
			case len(d)-i < 6:
				return len(d), esc, ErrSyntax
			default:
				for _, h := range d[i+2 : i+6] {
					if !strings.ContainsRune("0123456789abcdefABCDEF", rune(h)) {
						return i, esc, ErrInvalidEscape
					}
				}
				i += 6
			}
		case c < 0x20:
			return i, esc, ErrSyntax
		case c < 0x80:
			i++
		default:
			r, n := utf8.DecodeRune(d[i:])
			if r == utf8.RuneError && n == 1 {
				return i, esc, ErrInvalidUTF8
			}
			i += n
		}
	}
	return i, esc, ErrSyntax
}

// wideMode is one of the string loops: the portable word-at-a-time
// one, or the wide one with AVX2 (wide) or AVX-512 (wide and w512).
type wideMode struct {
	name       string
	wide, w512 bool
}

// checkString checks the string scan of d from i against scanStringRef
// with each loop of wideModes: scanStringSlow alone, stringEnd then
// scanStringSlow as the scanner calls them, and for a wide loop
// stringWide alone.
func checkString(t *testing.T, d []byte, i int) {
	t.Helper()
	defer setWide(defaultWide)
	wj, wesc, werr := scanStringRef(d, i)
	for _, m := range wideModes() {
		setWide(m)
		if j, esc, err := scanStringSlow(d, i); j != wj || esc != wesc || err != werr {
			t.Fatalf("%s: scanStringSlow(%q, %d) = %d, %v, %v; want %d, %v, %v", m.name, d, i, j, esc, err, wj, wesc, werr)
		}
		if m.wide {
			// Each wide loop decides every valid string itself and
			// leaves the others to the byte loop.
			want, wantEsc := wj, wesc
			if werr != nil {
				want, wantEsc = ^i, false
			}
			if j, esc := stringWide(d, i, m.w512); j != want || esc != wantEsc {
				t.Fatalf("%s: stringWide(%q, %d) = %d, %v; want %d, %v", m.name, d, i, j, esc, want, wantEsc)
			}
		}
		j, esc, err := stringEnd(d, i), false, error(nil)
		if j < 0 {
			j, esc, err = scanStringSlow(d, ^j)
		}
		if j != wj || esc != wesc || err != werr {
			t.Fatalf("%s: stringEnd, scanStringSlow(%q, %d) = %d, %v, %v; want %d, %v, %v", m.name, d, i, j, esc, err, wj, wesc, werr)
		}
	}
}

// stringFaults are bodies' pieces that end a scan or make it branch:
// escapes good and bad, invalid UTF-8 of each kind, control characters,
// the closing quote, and valid sequences of each length.
var stringFaults = []string{
	`"`, `\`, `\"`, `\\`, `\/`, `\n`, `\u00e9`, `\uD83D\uDCC8`, `\q`, `\u12g4`, `\u12`, "\\\x80",
	`\\\`, `\\\\\\`, `\\\"`, `\\\\"`, `\u\u0041`, `\u12"4`, // backslash runs, \u faults
	"\x7f",
	"é", "日", "😀", "\xef\xbf\xbd", "\xf4\x8f\xbf\xbf", "\xed\x9f\xbf",
	"\xe9", "\xe6\x97", "\xf0\x9f\x98", "\x80", "\xbf", "\xff", "\xf5\x80\x80\x80",
	"\xc0\xaf", "\xc1\xbf", "\xe0\x9f\xbf", "\xf0\x8f\xbf\xbf", // overlong
	"\xed\xa0\x80", "\xed\xbf\xbf", // surrogates
	"\xf4\x90\x80\x80", "\xf7\xbf\xbf\xbf", // above U+10FFFF
	"é\x80", "日\xe6", "\xc3é",
}

// TestStringWide: each fault at each position of a long body of mixed
// content (so across the wide loop's 32-byte blocks and its tail), from
// several starts and cut at several lengths, scans as the reference does.
func TestStringWide(t *testing.T) {
	for _, base := range []string{
		strings.Repeat("abcdefghijklmnopqrstuvwxyz012345", 4),      // ASCII
		strings.Repeat("naïve café 日本語 données ", 4),               // 2- and 3-byte sequences
		strings.Repeat("Q4 😀 and \\n \\\"quoted\\\" \\u00e9. ", 3), // escapes, 4-byte sequences
	} {
		faults := stringFaults
		for c := range 0x20 {
			faults = append(faults, string(rune(c))) // each control character
		}
		for _, f := range faults {
			for at := 0; at <= 100; at++ {
				d := []byte(base[:at] + f + base[at:] + `"`)
				for _, i := range []int{0, 1, 7, 33} {
					checkString(t, d, i)
				}
				for _, n := range []int{at + len(f), at + len(f) + 5, at + 40} {
					if n <= len(d) {
						checkString(t, d[:n], 0)
					}
				}
			}
		}
	}
}

// FuzzStringWide: any bytes scanned as a string body from any start give
// what the byte-at-a-time reference gives.
func FuzzStringWide(f *testing.F) {
	f.Add([]byte(strings.Repeat("a", 40)+`"`), 0)
	f.Add([]byte(strings.Repeat("é", 40)+`"`), 2)
	f.Add([]byte(strings.Repeat("日本語 \\n", 10)+"\xe6\x97"+`"`), 0)
	for _, s := range stringFaults {
		f.Add([]byte(strings.Repeat("naïve ", 5)+s+strings.Repeat("café ", 7)+`"`), 1)
	}
	f.Fuzz(func(t *testing.T, d []byte, i int) {
		if i < 0 || i > len(d) {
			return
		}
		checkString(t, d, i)
	})
}

// TestStringWide_everyByte puts each byte value after a backslash and in
// each hex digit of a \uXXXX, at every place of a 64-byte block and
// across its end, and each pair of byte values across the ends of 16-,
// 32- and 64-byte groups: the class tables, the escape masks and the
// UTF-8 tables are held to the reference for every byte.
func TestStringWide_everyByte(t *testing.T) {
	pad := strings.Repeat("x", 140)
	for c := range 256 {
		b := string([]byte{byte(c)})
		for _, f := range []string{`\` + b, `\u` + b + "0a0", `\u0` + b + "Ff", `\uAb` + b + "9", `\u00e` + b} {
			for at := 50; at <= 130; at++ {
				checkString(t, []byte(pad[:at]+f+pad[at:]+`"`), 0)
			}
		}
	}
	for a := range 256 {
		for b := range 256 {
			for _, at := range []int{47, 63} {
				d := []byte(pad[:at] + string([]byte{byte(a), byte(b)}) + pad[at:] + `"`)
				checkString(t, d, 0)
			}
		}
	}
}

// TestStringWide_backslashRuns: runs of backslashes of every length at
// every place of a block and across its end, followed by a quote, a
// letter, a valid escape or a \u, scan as the reference does (the
// parity of the runs).
func TestStringWide_backslashRuns(t *testing.T) {
	pad := strings.Repeat("y", 140)
	for n := 1; n <= 70; n++ {
		run := strings.Repeat(`\`, n)
		for _, next := range []string{`"`, "n", "q", "u0041", "u004", "é"} {
			for at := 0; at <= 70; at++ {
				checkString(t, []byte(pad[:at]+run+next+pad[at:]+`"`), 0)
			}
		}
	}
}
