package codec

import (
	"bytes"
	"slices"
	"unicode/utf8"
)

// The canonical form of a JSON text, for keys that must not depend on how a
// peer spelled a value (the response cache keys calls by method and
// canonical params).
//
// One recursive pass writes the value into dst as it reads it: white space
// dropped, numbers and literals copied, strings copied when they hold no
// escape (a validated string without escapes is already what the encoder
// would write) and re-escaped otherwise. An object's members are written in
// the order they come, each one's output span recorded with its unescaped
// name; when the names were not already in order, the object's output is
// copied aside once and written back sorted. Scratch (the member records,
// escaped names unescaped, the copy) lives in the Canonicalizer and is
// reused, so the steady state does not allocate.
//
// Invariants: members[base:] are the current object's records, their names
// views into the input or into keys; every offset in a record is an offset
// of dst, which only grows while an object is open.

// Canonicalizer writes JSON texts in canonical form (see AppendCanonical),
// reusing its scratch memory from one call to the next. The zero value is
// ready and uses the default MaxDepth. A Canonicalizer is not safe for
// concurrent use; keep one per goroutine.
type Canonicalizer struct {
	maxDepth int
	members  []canonMember
	keys     []byte // escaped member names, unescaped
	tmp      []byte // an object's output while it is put in order
}

// canonMember is one member of the object being written.
type canonMember struct {
	name   []byte // unescaped: a view into the input or into keys
	o0, o1 int    // its output `"name":value` is dst[o0:o1]
}

// NewCanonicalizer returns a Canonicalizer that refuses nesting deeper than
// l.MaxDepth (nil: the default) with ErrTooDeep.
func NewCanonicalizer(l *Limits) *Canonicalizer {
	return &Canonicalizer{maxDepth: l.WithDefaults().MaxDepth}
}

// AppendCanonical appends the canonical form of the JSON text raw to dst:
//
//   - no white space outside strings;
//   - object members sorted by name, unescaped, in byte order; members with
//     the same name are kept, in the order they came (the sort is stable),
//     so that a text with duplicated names keeps its meaning under any
//     reading (first or last wins);
//   - strings written as the encoder writes them: UTF-8 as is, escapes only
//     for '"', '\\' (\" and \\), control characters (\n \r \t \b \f, else
//     \u00XX); so "\u0061" and "a", "\/" and "/" are the same. An escaped
//     surrogate that does not pair becomes U+FFFD, as in AppendUnescaped;
//   - numbers and literals verbatim (1.0 and 1 stay different).
//
// Two texts that differ only in white space, member order or the spelling of
// escapes give the same bytes, and the canonical form of a canonical text is
// itself. raw must be valid JSON, as a Scanner validates it; a fault it
// meets is returned as a *SyntaxError (nesting deeper than DefaultMaxDepth
// is ErrTooDeep) and dst comes back with its old length. It allocates
// scratch memory for objects; use a Canonicalizer to reuse it.
func AppendCanonical(dst, raw []byte) ([]byte, error) {
	var c Canonicalizer
	return c.Append(dst, raw)
}

// Append is AppendCanonical with c's scratch memory: with a dst of enough
// capacity, it does not allocate once c has seen texts of the same shape.
func (c *Canonicalizer) Append(dst, raw []byte) ([]byte, error) {
	n := len(dst)
	out, i, err := c.value(dst, raw, skipWS(raw, 0), 0)
	if err == nil {
		if i = skipWS(raw, i); i < len(raw) {
			err = ErrTrailingData
		}
	}
	c.members, c.keys = c.members[:0], c.keys[:0]
	if err != nil {
		return dst[:n], &SyntaxError{Offset: int64(i), Err: err}
	}
	return out, nil
}

// value writes the value at d[i] (white space skipped) nested inside depth
// containers, and returns dst and the index just past the value.
func (c *Canonicalizer) value(dst, d []byte, i, depth int) ([]byte, int, error) {
	if i >= len(d) {
		return dst, i, ErrSyntax
	}
	switch ch := d[i]; {
	case ch == '"':
		j := stringEnd(d, i+1)
		esc := false
		if j < 0 {
			var err error
			if j, esc, err = scanStringSlow(d, ^j); err != nil {
				return dst, j, err
			}
		}
		if !esc {
			return append(dst, d[i:j]...), j, nil
		}
		return appendCanonicalString(dst, d[i+1:j-1]), j, nil
	case ch == '{' || ch == '[':
		if depth++; depth > c.limit() {
			return dst, i, ErrTooDeep
		}
		if ch == '{' {
			return c.object(dst, d, i, depth)
		}
		return c.array(dst, d, i, depth)
	}
	j, err := skipValueSlow(d, i) // a number or a literal: verbatim
	if err != nil {
		return dst, j, err
	}
	return append(dst, d[i:j]...), j, nil
}

func (c *Canonicalizer) limit() int {
	if c.maxDepth <= 0 {
		return DefaultMaxDepth
	}
	return c.maxDepth
}

// array writes the array at d[i] == '['.
func (c *Canonicalizer) array(dst, d []byte, i, depth int) ([]byte, int, error) {
	dst = append(dst, '[')
	if i = skipWS(d, i+1); i < len(d) && d[i] == ']' {
		return append(dst, ']'), i + 1, nil
	}
	for {
		var err error
		if dst, i, err = c.value(dst, d, i, depth); err != nil {
			return dst, i, err
		}
		if i = skipWS(d, i); i >= len(d) {
			return dst, i, ErrSyntax
		}
		switch d[i] {
		case ',':
			dst = append(dst, ',')
			i = skipWS(d, i+1)
		case ']':
			return append(dst, ']'), i + 1, nil
		default:
			return dst, i, ErrSyntax
		}
	}
}

// object writes the object at d[i] == '{', its members in order of name.
func (c *Canonicalizer) object(dst, d []byte, i, depth int) ([]byte, int, error) {
	dst = append(dst, '{')
	if i = skipWS(d, i+1); i < len(d) && d[i] == '}' {
		return append(dst, '}'), i + 1, nil
	}
	// On an error the records are left as they are: Append drops them all.
	base, keys, start := len(c.members), len(c.keys), len(dst)
	sorted := true
	for {
		if i >= len(d) || d[i] != '"' {
			return dst, i, ErrSyntax
		}
		// The name: written like any string; kept unescaped for the sort.
		m := canonMember{o0: len(dst)}
		var err error
		j := stringEnd(d, i+1)
		esc := false
		if j < 0 {
			if j, esc, err = scanStringSlow(d, ^j); err != nil {
				return dst, j, err
			}
		}
		if m.name = d[i+1 : j-1]; esc {
			k := len(c.keys)
			c.keys = AppendUnescaped(c.keys, m.name)
			m.name = c.keys[k:len(c.keys):len(c.keys)]
			dst = appendCanonicalString(dst, d[i+1:j-1])
		} else {
			dst = append(dst, d[i:j]...)
		}
		if i = skipWS(d, j); i >= len(d) || d[i] != ':' {
			return dst, i, ErrSyntax
		}
		dst = append(dst, ':')
		if dst, i, err = c.value(dst, d, skipWS(d, i+1), depth); err != nil {
			return dst, i, err
		}
		m.o1 = len(dst)
		if n := len(c.members); n > base && bytes.Compare(c.members[n-1].name, m.name) > 0 {
			sorted = false
		}
		c.members = append(c.members, m)
		if i = skipWS(d, i); i >= len(d) {
			return dst, i, ErrSyntax
		}
		switch d[i] {
		case ',':
			dst = append(dst, ',')
			i = skipWS(d, i+1)
			continue
		case '}':
		default:
			return dst, i, ErrSyntax
		}
		break
	}
	if !sorted {
		dst = c.sortMembers(dst, start, c.members[base:])
	}
	c.members, c.keys = c.members[:base], c.keys[:keys]
	return append(dst, '}'), i + 1, nil
}

// sortMembers rewrites dst[start:], the members ms of the current object as
// written, in order of name.
func (c *Canonicalizer) sortMembers(dst []byte, start int, ms []canonMember) []byte {
	slices.SortStableFunc(ms, func(a, b canonMember) int { return bytes.Compare(a.name, b.name) })
	c.tmp = append(c.tmp[:0], dst[start:]...)
	dst = dst[:start]
	for k, m := range ms {
		if k > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, c.tmp[m.o0-start:m.o1-start]...)
	}
	return dst
}

// appendCanonicalString appends the string whose body (between the quotes,
// validated) holds escapes, re-escaped as the encoder escapes
// (appendStringSlow): each escape is decoded and its character written as
// is, or escaped with appendEscapedASCII when it is '"', '\\' or a control
// character. Raw bytes are copied; invalid UTF-8, which a validated body
// does not hold, becomes \ufffd as in the encoder.
func appendCanonicalString(dst, body []byte) []byte {
	dst = append(dst, '"')
	start := 0 // body[start:i] is plain and not yet appended
	for i := 0; i < len(body); {
		c := body[i]
		if encPlain[c] {
			i++
			continue
		}
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRune(body[i:])
			if r != utf8.RuneError || size != 1 {
				i += size
				continue
			}
		}
		dst = append(dst, body[start:i]...)
		switch {
		case c == '\\':
			var buf [utf8.UTFMax]byte
			ch, n := appendEscape(buf[:0], body[i:])
			if len(ch) == 1 && !encPlain[ch[0]] {
				dst = appendEscapedASCII(dst, ch[0])
			} else {
				dst = append(dst, ch...)
			}
			i += n
		case c >= utf8.RuneSelf:
			dst = append(dst, `\ufffd`...)
			i++
		default:
			dst = appendEscapedASCII(dst, c)
			i++
		}
		start = i
	}
	dst = append(dst, body[start:]...)
	return append(dst, '"')
}
