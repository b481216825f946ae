package codec

import (
	"math"
	"strconv"
)

// Duplicated member names in params. RFC 8259 leaves the meaning of an
// object with a name given twice to the implementation, and decoders
// differ (sonic keeps the last value, a JSON Schema validator may see
// either): what is decoded into Go values is first checked with
// DuplicateName, and refused as the envelope refuses its own duplicates.
//
// Structure: one walk over a value the Scanner has validated (so with no
// checks but those that keep it within v), recursive on containers. Each
// object keeps its first smallObject names in an array on its own stack
// frame and compares a new name with them by their raw bytes (unescaped
// when either holds an escape); past that its names go into a set shared
// by the walk, keyed by where the object's first name begins, so that an
// object of n names costs O(n). Small params are checked without
// allocating.
//
// It is not in the Scanner's pass: tracking names there made a small
// request's scan 27–41% slower (a call and a few stores per member), for
// params that are decoded at most once.

// smallObject is how many names of one object are compared pairwise.
const smallObject = 8

// nameRef is one member name: its body (between the quotes) in the value.
type nameRef struct {
	start, end uint32
	esc        bool // the body holds an escape sequence
}

// nameKey is an entry of a set of names: a name, unescaped, of the object
// whose first name begins at obj.
type nameKey struct {
	obj  int
	name string
}

// maxDupDepth bounds the nesting DuplicateName follows, for a caller that
// passes text no Scanner has validated (whose MaxDepth would bound it).
const maxDupDepth = 10000

// dupFinder is the state of one DuplicateName walk.
type dupFinder struct {
	d     []byte
	depth int
	set   map[nameKey]struct{}
	a, b  []byte // names being compared, unescaped
}

// DuplicateName reports where the first member name given twice in one
// object of v begins (the opening quote of its second occurrence), at any
// depth, names compared after unescaping ("a" and "\u0061" are one name);
// -1 if there is none. v must be one JSON value a Scanner has validated
// (a Message's Params, say): DuplicateName does not check its syntax; on
// other text it stops where it notices, and never panics. It does not
// allocate unless an object has more than 8 names, or names with escapes
// to compare.
func DuplicateName(v []byte) int {
	i := skipWS(v, 0)
	if i >= len(v) || v[i] != '{' && v[i] != '[' {
		return -1
	}
	f := dupFinder{d: v}
	if uint64(len(v)) > math.MaxUint32 {
		f.set = make(map[nameKey]struct{}) // offsets past uint32: names by set
	}
	_, at := f.value(i)
	return at
}

// value walks the value at d[i] and returns the index just past it and
// where a duplicated name begins (-1: none).
func (f *dupFinder) value(i int) (int, int) {
	d := f.d
	if i >= len(d) {
		return len(d), -1 // not valid JSON: stop
	}
	switch d[i] {
	case '{', '[':
		if f.depth++; f.depth > maxDupDepth {
			return len(d), -1
		}
		var at int
		if d[i] == '{' {
			i, at = f.object(i)
		} else {
			i, at = f.array(i)
		}
		f.depth--
		return i, at
	case '"':
		end, _ := stringSpan(d, i)
		return end, -1
	default: // a number or a literal
		if j := intEnd(d, i); j >= 0 { // the common case, inlined
			return j, -1
		}
		if j, err := SkipValue(d, i); err == nil {
			return j, -1
		}
		return len(d), -1 // not valid JSON: stop
	}
}

// array walks the array at d[i] == '['.
func (f *dupFinder) array(i int) (int, int) {
	d := f.d
	if i = skipWS(d, i+1); i >= len(d) || d[i] == ']' {
		return i + 1, -1
	}
	for {
		var at int
		if i, at = f.value(i); at >= 0 {
			return i, at
		}
		if i = skipWS(d, i); i >= len(d) || d[i] == ']' {
			return i + 1, -1
		}
		i = skipWS(d, i+1) // past the comma
	}
}

// object walks the object at d[i] == '{'.
func (f *dupFinder) object(i int) (int, int) {
	d := f.d
	if i = skipWS(d, i+1); i >= len(d) || d[i] == '}' {
		return i + 1, -1
	}
	var (
		small [smallObject]nameRef
		n     int
		obj   = i // where the first name begins: which object this is
	)
	if uint64(len(d)) > math.MaxUint32 {
		n = smallObject + 1
	}
	for {
		if d[i] != '"' {
			return len(d), -1 // not valid JSON: stop
		}
		end, esc := stringSpan(d, i)
		if end > len(d) || end-1 <= i {
			return len(d), -1
		}
		switch {
		case n < smallObject:
			r := nameRef{uint32(i + 1), uint32(end - 1), esc}
			for _, p := range small[:n] {
				if p.esc || r.esc {
					if f.same(p, r) {
						return end, i
					}
				} else if string(d[p.start:p.end]) == string(d[r.start:r.end]) {
					return end, i
				}
			}
			small[n] = r
			n++
		default:
			if n == smallObject {
				f.toSet(obj, small[:])
				n++
			}
			if f.inSet(obj, d[i+1:end-1], esc) {
				return end, i
			}
		}
		if i = skipWS(d, skipWS(d, end)+1); i >= len(d) { // past the colon
			return len(d), -1
		}
		// Plain strings and integers inline; anything else by a call.
		if c := d[i]; c == '"' {
			i, _ = stringSpan(d, i)
		} else if j := intEnd(d, i); j >= 0 {
			i = j
		} else {
			var at int
			if i, at = f.value(i); at >= 0 {
				return i, at
			}
		}
		if i = skipWS(d, i); i >= len(d) || d[i] == '}' {
			return i + 1, -1
		}
		if i = skipWS(d, i+1); i >= len(d) { // past the comma
			return len(d), -1
		}
	}
}

// toSet puts the names of the object obj, so far, into the set.
func (f *dupFinder) toSet(obj int, names []nameRef) {
	if f.set == nil {
		f.set = make(map[nameKey]struct{})
	}
	for _, r := range names {
		f.set[nameKey{obj, string(f.unescaped(&f.a, r))}] = struct{}{}
	}
}

// inSet reports whether the name whose body is raw was given before in
// the object obj, and adds it to the set.
func (f *dupFinder) inSet(obj int, raw []byte, esc bool) bool {
	name := raw
	if esc {
		f.a = AppendUnescaped(f.a[:0], raw)
		name = f.a
	}
	key := nameKey{obj, string(name)}
	if _, ok := f.set[key]; ok {
		return true
	}
	f.set[key] = struct{}{}
	return false
}

// same reports whether names x and y are the same after unescaping.
func (f *dupFinder) same(x, y nameRef) bool {
	if !x.esc && !y.esc {
		return string(f.d[x.start:x.end]) == string(f.d[y.start:y.end])
	}
	return string(f.unescaped(&f.a, x)) == string(f.unescaped(&f.b, y))
}

// unescaped returns name r, unescaped into *buf if it holds escapes.
func (f *dupFinder) unescaped(buf *[]byte, r nameRef) []byte {
	if !r.esc {
		return f.d[r.start:r.end]
	}
	*buf = AppendUnescaped((*buf)[:0], f.d[r.start:r.end])
	return *buf
}

// stringSpan returns the index just past the closing quote of the string
// at d[i] (validated), and whether it holds an escape sequence.
func stringSpan(d []byte, i int) (int, bool) {
	j := stringEnd(d, i+1)
	if j >= 0 {
		return j, false
	}
	j, esc, _ := scanStringSlow(d, ^j)
	return j, esc
}

// DuplicateNameError is the error to answer params with when DuplicateName
// found a name given twice at params[at]: -32602, "Invalid params:
// duplicated member", with data {"member": the name, unescaped, "pointer":
// the JSON Pointer (RFC 6901) of its second occurrence from the message's
// root, "/params/…"}. It allocates; it is the rare path.
func DuplicateNameError(params []byte, at int) *Error {
	name, ptr, ok := dupPointer(params, at, append(make([]byte, 0, 64), "/params"...))
	if !ok { // at is not a name of params: a caller's bug
		return ErrInvalidParams
	}
	data := append(make([]byte, 0, len(name)+len(ptr)+32), `{"member":`...)
	data = appendString(data, string(name))
	data = append(data, `,"pointer":`...)
	data = appendString(data, string(ptr))
	data = append(data, '}')
	return &Error{Code: CodeInvalidParams, Message: "Invalid params: duplicated member", Data: Raw(data)}
}

// dupPointer walks v, a valid JSON value, down to the member name whose
// opening quote is at v[at], appending the path to ptr as it goes. It
// returns the name, unescaped, and the pointer to the member.
func dupPointer(v []byte, at int, ptr []byte) (name, _ []byte, ok bool) {
	switch KindOf(v) {
	case ValueObject:
		var m Members
		for m.Reset(v); m.Next(); {
			name := m.Name(nil)
			if m.KeyOffset() == at {
				return name, appendPointerToken(append(ptr, '/'), name), true
			}
			if off := m.Offset(); at > off && at < off+len(m.Value()) {
				return dupPointer(m.Value(), at-off, appendPointerToken(append(ptr, '/'), name))
			}
		}
	case ValueArray:
		var e Elements
		for e.Reset(v); e.Next(); {
			if off := e.Offset(); at > off && at < off+len(e.Value()) {
				ptr = strconv.AppendInt(append(ptr, '/'), int64(e.Index()), 10)
				return dupPointer(e.Value(), at-off, ptr)
			}
		}
	}
	return nil, ptr, false
}

// appendPointerToken appends a name as a JSON Pointer reference token:
// '~' becomes "~0" and '/' becomes "~1".
func appendPointerToken(dst, name []byte) []byte {
	for _, c := range name {
		switch c {
		case '~':
			dst = append(dst, '~', '0')
		case '/':
			dst = append(dst, '~', '1')
		default:
			dst = append(dst, c)
		}
	}
	return dst
}
