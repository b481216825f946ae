package codec

// Tokens: reading JSON text that a Scanner has already validated, without
// unmarshalling it. Values are raw spans of the input; nothing is copied.
//
// Structure: SkipValue is the one way to find where a value ends. Its fast
// path (inlinable) takes the plain strings and integers of compact JSON with
// the scanner's own helpers (stringEnd, intEnd); skipValueSlow takes the
// rest: escaped or non-ASCII strings (scanStringSlow), other numbers
// (scanNumber), literals, and containers, which it crosses by counting
// brackets and jumping over strings. Members and Elements (iter.go) and the
// canonical form (canonical.go) are built on these.
//
// Invariants: as in scan.go, every index satisfies 0 <= i <= len(d), and an
// error comes with the offset of the offending byte (len(d) when the text
// ended too soon). The input is assumed valid: where it is not, these
// functions return an error (or, for faults they do not look for, such as a
// ']' closing a '{', a wrong but in-bounds answer); they never panic and
// never loop.

// ValueKind is the kind of a JSON value, told by its first byte.
type ValueKind uint8

// The kinds of JSON values.
const (
	ValueInvalid ValueKind = iota // not the start of a JSON value
	ValueObject                   // {
	ValueArray                    // [
	ValueString                   // "
	ValueNumber                   // - or a digit
	ValueTrue                     // true
	ValueFalse                    // false
	ValueNull                     // null
)

var valueKindText = [...]string{"invalid", "object", "array", "string", "number", "true", "false", "null"}

// String returns the kind's name in JSON's words: "object", "string"…
func (k ValueKind) String() string {
	if int(k) < len(valueKindText) {
		return valueKindText[k]
	}
	return "kind?"
}

// IsBool reports whether k is ValueTrue or ValueFalse.
func (k ValueKind) IsBool() bool { return k == ValueTrue || k == ValueFalse }

// kindByte maps the first byte of a value to its kind.
var kindByte = func() (t [256]ValueKind) {
	t['{'], t['['], t['"'] = ValueObject, ValueArray, ValueString
	t['t'], t['f'], t['n'] = ValueTrue, ValueFalse, ValueNull
	t['-'] = ValueNumber
	for c := '0'; c <= '9'; c++ {
		t[c] = ValueNumber
	}
	return t
}()

// KindOf returns the kind of the JSON value raw holds, judged by its first
// byte after white space; an empty raw is ValueInvalid. It does not validate
// the rest.
func KindOf(raw []byte) ValueKind {
	if len(raw) > 0 && raw[0] > ' ' { // compact JSON: inlined
		return kindByte[raw[0]]
	}
	return kindOfSlow(raw)
}

func kindOfSlow(raw []byte) ValueKind {
	i := skipWS(raw, 0)
	if i >= len(raw) {
		return ValueInvalid
	}
	return kindByte[raw[i]]
}

// SkipValue returns the index just past the JSON value that starts at d[i]
// (after optional white space). d must hold valid JSON there, as a Scanner
// has validated it: SkipValue checks strings, numbers and literals but not
// how containers nest. On input that is not valid it returns ErrSyntax (or
// ErrInvalidUTF8, ErrInvalidEscape) with the offset of the fault in end; it
// never panics and never loops.
func SkipValue(d []byte, i int) (end int, err error) {
	if i < 0 {
		return 0, ErrSyntax
	}
	if i = skipWS(d, i); i < len(d) {
		switch c := d[i]; {
		case c == '"':
			if j := stringEnd(d, i+1); j >= 0 {
				return j, nil
			}
		case c-'1' < 9:
			if j := intEnd(d, i); j >= 0 {
				return j, nil
			}
		}
	}
	return skipValueSlow(d, i)
}

// skipValueSlow is SkipValue for any value at d[i] (white space skipped).
func skipValueSlow(d []byte, i int) (int, error) {
	if i >= len(d) {
		return len(d), ErrSyntax
	}
	switch c := d[i]; {
	case c == '"':
		j, _, err := scanStringSlow(d, i+1)
		return j, err
	case c-'0' < 10 || c == '-':
		return scanNumber(d, i)
	case c == '{' || c == '[':
		return skipContainer(d, i)
	case c == 't':
		return literal(d, i, "true")
	case c == 'f':
		return literal(d, i, "false")
	case c == 'n':
		return literal(d, i, "null")
	}
	return i, ErrSyntax
}

// literal checks that d[i:] begins with lit and returns the index past it.
func literal(d []byte, i int, lit string) (int, error) {
	if len(d)-i < len(lit) || string(d[i:i+len(lit)]) != lit {
		return i, ErrSyntax
	}
	return i + len(lit), nil
}

// skipContainer returns the index just past the array or object at d[i]. It
// counts brackets and jumps over strings, so a bracket inside a string does
// not count; it does not check what lies between.
func skipContainer(d []byte, i int) (int, error) {
	depth := 0
	for i < len(d) {
		switch d[i] {
		case '"':
			j := stringEnd(d, i+1)
			if j < 0 {
				var err error
				if j, _, err = scanStringSlow(d, ^j); err != nil {
					return j, err
				}
			}
			i = j
			continue
		case '{', '[':
			depth++
		case '}', ']':
			if depth--; depth == 0 {
				return i + 1, nil
			}
		}
		i++
	}
	return len(d), ErrSyntax
}

// Unquote returns the contents of the JSON string token tok (quotes
// included, white space around allowed), unescaped. Without escapes the
// result is a view into tok, valid as long as tok is; with escapes it is a
// new slice (use AppendUnquote to reuse a buffer). A lone escaped surrogate
// becomes U+FFFD, as in AppendUnescaped. A tok that is not exactly one
// string gives an error.
func Unquote(tok []byte) ([]byte, error) {
	body, esc, err := stringBody(tok)
	if err != nil || !esc {
		return body, err
	}
	return AppendUnescaped(make([]byte, 0, len(body)), body), nil
}

// AppendUnquote appends the contents of the JSON string token tok, unescaped,
// to dst: Unquote without an allocation when dst has room.
func AppendUnquote(dst, tok []byte) ([]byte, error) {
	body, esc, err := stringBody(tok)
	if err != nil {
		return dst, err
	}
	if !esc {
		return append(dst, body...), nil
	}
	return AppendUnescaped(dst, body), nil
}

// stringBody returns the body of the string token tok (between its quotes)
// and whether it holds escapes.
func stringBody(tok []byte) (body []byte, esc bool, err error) {
	i := skipWS(tok, 0)
	if i >= len(tok) || tok[i] != '"' {
		return nil, false, &SyntaxError{Offset: int64(i), Err: ErrSyntax}
	}
	j := stringEnd(tok, i+1)
	if j < 0 {
		if j, esc, err = scanStringSlow(tok, ^j); err != nil {
			return nil, false, &SyntaxError{Offset: int64(j), Err: err}
		}
	}
	if k := skipWS(tok, j); k < len(tok) {
		return nil, false, &SyntaxError{Offset: int64(k), Err: ErrTrailingData}
	}
	return tok[i+1 : j-1], esc, nil
}
