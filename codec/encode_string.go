package codec

import "unicode/utf8"

// JSON string escaping for the envelope's own strings (error messages,
// method names).
//
// Fast path: appendString checks every byte against a table of bytes that
// may be copied as they are (printable ASCII other than '"' and '\\'); when
// all are, the string is appended in one copy. Slow path: appendStringSlow
// copies runs of such bytes, keeps valid UTF-8 sequences as they are,
// escapes '"', '\\' and control characters (\n \r \t \b \f, else \u00XX),
// and replaces each invalid UTF-8 byte with \ufffd.

// appendString appends s as a quoted JSON string.
func appendString(dst []byte, s string) []byte {
	if i := plainPrefix(s); i < len(s) {
		return appendStringSlow(append(dst, '"'), s, i)
	}
	return appendQuoted(dst, s)
}

// appendQuoted appends s, whose bytes are all plain, between quotes.
func appendQuoted(dst []byte, s string) []byte {
	dst = append(dst, '"')
	dst = append(dst, s...)
	return append(dst, '"')
}

// plainPrefix returns the length of the longest prefix of s whose bytes
// are all plain (encPlain): copied into a JSON string as they are.
func plainPrefix(s string) int {
	for i := 0; i < len(s); i++ {
		if !encPlain[s[i]] {
			return i
		}
	}
	return len(s)
}

// appendStringSlow appends s (whose first i bytes are plain) and the closing
// quote; dst already holds the opening quote.
func appendStringSlow(dst []byte, s string, i int) []byte {
	start := 0 // s[start:i] is plain and not yet appended
	for i < len(s) {
		c := s[i]
		if encPlain[c] {
			i++
			continue
		}
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r != utf8.RuneError || size != 1 {
				i += size // valid UTF-8: kept as is
				continue
			}
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i++
			start = i
			continue
		}
		dst = append(dst, s[start:i]...)
		dst = appendEscapedASCII(dst, c)
		i++
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// appendEscapedASCII appends the escape of c, an ASCII byte that is not
// plain (encPlain): '"', '\\' or a control character. The canonical form
// (canonical.go) escapes with it too, so both write the same bytes.
func appendEscapedASCII(dst []byte, c byte) []byte {
	const hex = "0123456789abcdef"
	switch c {
	case '"', '\\':
		return append(dst, '\\', c)
	case '\n':
		return append(dst, '\\', 'n')
	case '\r':
		return append(dst, '\\', 'r')
	case '\t':
		return append(dst, '\\', 't')
	case '\b':
		return append(dst, '\\', 'b')
	case '\f':
		return append(dst, '\\', 'f')
	}
	return append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
}

// encPlain marks the bytes appendString copies without a second look.
var encPlain = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()
