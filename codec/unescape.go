package codec

import (
	"bytes"
	"unicode/utf8"
)

// AppendUnescaped appends the unescaped contents of a JSON string body (the
// bytes between the quotes, already validated by a Scanner) to dst.
//
// A \uXXXX escape of a surrogate that is not part of a valid pair (a lone
// "\ud800", or a low surrogate first) becomes U+FFFD, as encoding/json does.
// Given a body that was not validated it does not panic: a broken escape is
// copied through as it stands.
func AppendUnescaped(dst, body []byte) []byte {
	for {
		k := bytes.IndexByte(body, '\\')
		if k < 0 {
			return append(dst, body...)
		}
		dst = append(dst, body[:k]...)
		var n int
		dst, n = appendEscape(dst, body[k:])
		body = body[k+n:]
	}
}

// appendUnescapedMax unescapes body into dst until at least max bytes were
// appended or body is used up, and returns dst and the number of body bytes
// consumed. Whole characters are appended, so dst may grow by up to max+3
// bytes: with a dst of capacity len(dst)+max+3 it never allocates.
func appendUnescapedMax(dst, body []byte, max int) ([]byte, int) {
	start, i := len(dst), 0
	for i < len(body) && len(dst)-start < max {
		if c := body[i]; c != '\\' {
			dst = append(dst, c)
			i++
			continue
		}
		var n int
		dst, n = appendEscape(dst, body[i:])
		i += n
	}
	return dst, i
}

// appendEscape appends the character of the escape sequence at the start of
// esc (esc[0] == '\\') and returns dst and the length of the sequence: 2, 6,
// or 12 for a surrogate pair. A malformed sequence appends its first byte.
func appendEscape(dst, esc []byte) ([]byte, int) {
	if len(esc) < 2 {
		return append(dst, esc...), len(esc)
	}
	switch c := esc[1]; c {
	case '"', '\\', '/':
		return append(dst, c), 2
	case 'b':
		return append(dst, '\b'), 2
	case 'f':
		return append(dst, '\f'), 2
	case 'n':
		return append(dst, '\n'), 2
	case 'r':
		return append(dst, '\r'), 2
	case 't':
		return append(dst, '\t'), 2
	case 'u':
		r, ok := hex4(esc[2:])
		if !ok {
			break
		}
		if r < 0xd800 || r > 0xdfff {
			return utf8.AppendRune(dst, r), 6
		}
		if r <= 0xdbff && len(esc) >= 12 && esc[6] == '\\' && esc[7] == 'u' {
			if lo, ok := hex4(esc[8:]); ok && 0xdc00 <= lo && lo <= 0xdfff {
				return utf8.AppendRune(dst, 0x10000+(r-0xd800)<<10+(lo-0xdc00)), 12
			}
		}
		return utf8.AppendRune(dst, utf8.RuneError), 6 // lone surrogate
	}
	return append(dst, '\\'), 1
}

// hex4 decodes four hex digits at the start of b.
func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	v := rune(hexVal[b[0]])<<12 | rune(hexVal[b[1]])<<8 | rune(hexVal[b[2]])<<4 | rune(hexVal[b[3]])
	if hexVal[b[0]]|hexVal[b[1]]|hexVal[b[2]]|hexVal[b[3]] > 0xf {
		return 0, false
	}
	return v, true
}
