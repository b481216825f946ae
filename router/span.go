package router

// Span walking over JSON text that the scanner has already validated.
//
// These helpers find where values, members and elements begin and end; they
// never unmarshal. They are used to decode positional params element by
// element and, on the error path, to find which member a decoder error is in.
// On malformed input they do not panic: they return -1 (or ok=false) and the
// caller reports the params as invalid.

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func skipSpace(s string, i int) int {
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	return i
}

// skipValue returns the index just past the value starting at s[i], or -1.
func skipValue(s string, i int) int {
	if i >= len(s) {
		return -1
	}
	switch s[i] {
	case '"':
		return skipString(s, i)
	case '{', '[':
		depth := 0
		for i < len(s) {
			switch s[i] {
			case '"':
				i = skipString(s, i)
				if i < 0 {
					return -1
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return -1
	default: // number, true, false, null
		j := i
		for j < len(s) {
			switch s[j] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return j
			}
			j++
		}
		return j
	}
}

// skipString returns the index just past the string whose opening quote is
// at s[i], or -1.
func skipString(s string, i int) int {
	for i++; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return -1
}

// iter walks the members of an object or the elements of an array. Start it
// with begin; each successful next sets key (object members only: the raw key
// between its quotes, still escaped) and the value span [v0, v1).
type iter struct {
	s      string
	i      int
	object bool
	key    string
	v0, v1 int
	n      int // values returned so far
	bad    bool
}

// begin prepares to walk the container starting at s[i] and reports whether
// it is an object or an array.
func (it *iter) begin(s string, i int) bool {
	*it = iter{s: s}
	i = skipSpace(s, i)
	if i >= len(s) || (s[i] != '{' && s[i] != '[') {
		return false
	}
	it.object = s[i] == '{'
	it.i = i + 1
	return true
}

func (it *iter) next() bool {
	if it.bad {
		return false
	}
	s := it.s
	i := skipSpace(s, it.i)
	if i < len(s) && s[i] == ',' && it.n > 0 {
		i = skipSpace(s, i+1)
	}
	if i >= len(s) {
		it.bad = true
		return false
	}
	if s[i] == '}' || s[i] == ']' {
		it.i = i
		return false
	}
	if it.object {
		end := skipString(s, i)
		if s[i] != '"' || end < 0 {
			it.bad = true
			return false
		}
		it.key = s[i+1 : end-1]
		i = skipSpace(s, end)
		if i >= len(s) || s[i] != ':' {
			it.bad = true
			return false
		}
		i = skipSpace(s, i+1)
	}
	end := skipValue(s, i)
	if end < 0 {
		it.bad = true
		return false
	}
	it.v0, it.v1 = i, end
	it.i = end
	it.n++
	return true
}

// value returns the current value's text.
func (it *iter) value() string { return it.s[it.v0:it.v1] }
