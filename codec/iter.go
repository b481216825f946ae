package codec

// Iterators over the members of an object and the elements of an array, as
// raw spans. Both are small values meant to live on the caller's stack:
//
//	var it codec.Members
//	for it.Reset(obj); it.Next(); {
//		use(it.Key(), it.Value())
//	}
//	if err := it.Err(); err != nil { … }
//
// Next moves the walk (NextKey and ReadValue are its two halves; Enter
// and Leave, in place of ReadValue, walk into a member's object without
// skipping it first); the others read what it found. Each step reads the
// punctuation before a value and finds the value's end as SkipValue does:
// the comma of compact JSON, a plain name, a plain string or an integer
// inline (valueEnd), the rest through sep and skipValueSlow. The text is
// assumed valid (a Scanner validated it); on text that is not, Next stops
// and Err says where.
//
// Invariants: 0 <= pos <= len(d); between calls, pos is just past the opening
// bracket (before the first Next), just past the last value returned, at
// the first byte of a member's value NextKey did not read, or len(d) once
// the walk is done. A walk Enter started (nested) ends at its closing
// bracket, end just past it, leaving what follows to its parent (Leave).

// cursor is the state Members and Elements share.
type cursor struct {
	d      []byte
	pos    int
	v0, v1 int  // the current value, d[v0:v1]
	n      int  // values returned so far
	done   bool // the closing bracket was read, or an error stopped the walk
	errAt  int
	err    error // a sentinel of errors.go
	nested bool  // a walk Enter started: d runs on past the container
	end    int   // once a nested walk is done without fault: past its closing bracket
}

// reset starts a walk over the container d must hold, opened by open.
func (c *cursor) reset(d []byte, open byte) {
	*c = cursor{d: d}
	i := skipWS(d, 0)
	if i >= len(d) || d[i] != open {
		c.fail(i, ErrSyntax)
		return
	}
	c.pos = i + 1
}

// fail stops the walk at a fault: at is its offset, err its sentinel.
func (c *cursor) fail(at int, err error) {
	c.done, c.pos, c.errAt, c.err = true, len(c.d), at, err
}

// sep finds the next member or element after the previous one (or after
// the opening bracket): past the comma that must come before it, or to the
// end at the closing bracket. It returns the index of its first byte, or -1
// at the end or at a fault. The Next methods take the comma of compact JSON
// themselves and call sep for the rest.
func (c *cursor) sep(closer byte) int {
	if c.done {
		return -1
	}
	d := c.d
	i := skipWS(d, c.pos)
	if i < len(d) && d[i] == closer {
		c.done, c.pos = true, len(d)
		if c.nested { // what follows is the parent's (Leave)
			c.end = i + 1
			return -1
		}
		if j := skipWS(d, i+1); j < len(d) {
			c.fail(j, ErrTrailingData)
		}
		return -1
	}
	if c.n > 0 {
		if i >= len(d) || d[i] != ',' {
			c.fail(i, ErrSyntax)
			return -1
		}
		i = skipWS(d, i+1)
	}
	if i >= len(d) {
		c.fail(i, ErrSyntax)
		return -1
	}
	return i
}

// value makes the value at d[i] the current one: valueEnd finds its end,
// or, when that fast path cannot, skipValueSlow.
func (c *cursor) value(i int) bool {
	j := valueEnd(c.d, i)
	if j < 0 {
		var err error
		if j, err = skipValueSlow(c.d, i); err != nil {
			c.fail(j, err)
			return false
		}
	}
	c.v0, c.v1, c.pos = i, j, j
	c.n++
	return true
}

// valueEnd is the fast path of SkipValue for d[i], i < len(d): the end of a
// plain string or an integer, else a negative number.
func valueEnd(d []byte, i int) int {
	switch c := d[i]; {
	case c == '"':
		return stringEnd(d, i+1) // negative: escapes, non-ASCII, a long string (see stringEnd), or one cut off
	case c-'1' < 9:
		return intEnd(d, i)
	}
	return -1
}

// error returns the error that stopped the walk, as a *SyntaxError.
func (c *cursor) error() error {
	if c.err == nil {
		return nil
	}
	return &SyntaxError{Offset: int64(c.errAt), Err: c.err}
}

// Members iterates over the members of a JSON object, in order, duplicates
// included. Reset starts a walk (a Members that was never Reset reports an
// error). It does not allocate. A Members is not safe for concurrent use.
type Members struct {
	c      cursor
	k0, k1 int  // the current key token, quotes included
	esc    bool // the key holds escapes
}

// Reset starts a walk over obj, which must hold one JSON object (white space
// around it allowed). Slices returned later are views into obj, valid as long
// as obj is unchanged.
func (m *Members) Reset(obj []byte) { m.c.reset(obj, '{') }

// Next moves to the next member and reports whether there is one. It returns
// false at the end of the object and at the first fault (see Err).
func (m *Members) Next() bool { return m.next(true) }

// NextKey is the first half of Next: it moves to the next member and reads
// its name (Key, Name, KeyEscaped, KeyOffset) but not its value, whose
// offset is Offset. Before m moves on, ReadValue reads the value (Value,
// as Next would have) or Enter walks into it; moving m with the value
// unread stops the walk with an error.
func (m *Members) NextKey() bool { return m.next(false) }

// ReadValue is the second half of Next after NextKey: it finds the end of
// the current member's value (Value) and reports false at a fault (see
// Err).
func (m *Members) ReadValue() bool {
	c := &m.c
	if c.done {
		return false
	}
	c.n-- // value counts it again
	return c.value(c.v0)
}

// Enter starts in's walk over the current member's value, which NextKey
// did not read, when it is an object, and reports true: its members are
// read without its end being found first. Leave then moves m past it.
// Enter reports false, and leaves in as it was, when the value is not an
// object (ReadValue reads it). Slices in returns are views into m's
// object; offsets are in the value.
func (m *Members) Enter(in *Members) bool {
	c := &m.c
	if c.done || c.pos != c.v0 || c.v0 >= len(c.d) || c.d[c.v0] != '{' {
		return false
	}
	in.c = cursor{d: c.d[c.v0:], pos: 1, nested: true}
	return true
}

// Leave is ReadValue after Enter(in): it moves m past the value in walked
// and reports false at a fault, in's included (Err then gives its offset
// in m's object). When in's walk has not ended, the rest of the value is
// read as ReadValue reads it.
func (m *Members) Leave(in *Members) bool {
	c, ic := &m.c, &in.c
	if c.done || c.pos != c.v0 || !ic.nested || len(ic.d) != len(c.d)-c.v0 {
		return m.ReadValue() // in walks no value of m's now
	}
	switch {
	case ic.err != nil:
		c.fail(c.v0+ic.errAt, ic.err)
		return false
	case !ic.done:
		return m.ReadValue()
	}
	c.v1, c.pos = c.v0+ic.end, c.v0+ic.end
	return true
}

// next is Next, or NextKey when value is not set.
func (m *Members) next(value bool) bool {
	c := &m.c
	d, i := c.d, c.pos
	if c.n > 0 && i < len(d) && d[i] == ',' { // compact JSON: no call
		i = skipWS(d, i+1)
	} else if i = c.sep('}'); i < 0 {
		return false
	}
	if i >= len(d) || d[i] != '"' {
		c.fail(i, ErrSyntax)
		return false
	}
	j := stringEnd(d, i+1)
	esc := false
	if j < 0 {
		var err error
		if j, esc, err = scanStringSlow(d, ^j); err != nil {
			c.fail(j, err)
			return false
		}
	}
	m.k0, m.k1, m.esc = i, j, esc
	if j = skipWS(d, j); j >= len(d) || d[j] != ':' {
		c.fail(j, ErrSyntax)
		return false
	}
	if i = skipWS(d, j+1); i >= len(d) {
		c.fail(i, ErrSyntax)
		return false
	}
	if !value { // NextKey: the value unread, its first byte at pos
		c.v0, c.v1, c.pos = i, i, i
		c.n++
		return true
	}
	return c.value(i)
}

// Key returns the current member's name as it stands in the object: a string
// token, quotes included, escapes as sent. See Name for the name itself.
func (m *Members) Key() []byte { return m.c.d[m.k0:m.k1] }

// KeyOffset returns the offset of the current member's name (its opening
// quote) in the object: where the member begins.
func (m *Members) KeyOffset() int { return m.k0 }

// KeyEscaped reports whether the current member's name holds escape
// sequences. When it does not, the name is Key without its quotes.
func (m *Members) KeyEscaped() bool { return m.esc }

// Name returns the current member's name, unescaped: without escapes, a view
// into the object (Key without its quotes); with them, the name unescaped
// into scratch[:0], which is allocated anew only if too small. Compare it
// with a field name byte for byte: JSON names are case-sensitive.
func (m *Members) Name(scratch []byte) []byte {
	body := m.c.d[m.k0+1 : m.k1-1]
	if !m.esc {
		return body
	}
	return AppendUnescaped(scratch[:0], body)
}

// Value returns the current member's value: a raw span of the object, white
// space excluded.
func (m *Members) Value() []byte { return m.c.d[m.c.v0:m.c.v1] }

// Offset returns the offset of the current member's value in the object.
func (m *Members) Offset() int { return m.c.v0 }

// Index returns the position of the current member: 0 for the first. Once
// Next has returned false, Index()+1 is the number of members read.
func (m *Members) Index() int { return m.c.n - 1 }

// Err returns nil when the walk ended at the object's closing brace (or has
// not ended yet), else a *SyntaxError with the offset of the fault in the
// object: obj was not one object, or not valid JSON.
func (m *Members) Err() error { return m.c.error() }

// Elements iterates over the elements of a JSON array, in order. The zero
// Reset starts a walk (an Elements that was never Reset reports an error).
// It does not allocate.
// An Elements is not safe for concurrent use.
type Elements struct {
	c cursor
}

// Reset starts a walk over arr, which must hold one JSON array (white space
// around it allowed). Slices returned later are views into arr, valid as
// long as arr is unchanged.
func (e *Elements) Reset(arr []byte) { e.c.reset(arr, '[') }

// Next moves to the next element and reports whether there is one. It
// returns false at the end of the array and at the first fault (see Err).
func (e *Elements) Next() bool {
	c := &e.c
	d, i := c.d, c.pos
	if c.n > 0 && i < len(d) && d[i] == ',' { // compact JSON: no call
		if i = skipWS(d, i+1); i >= len(d) {
			c.fail(i, ErrSyntax)
			return false
		}
	} else if i = c.sep(']'); i < 0 {
		return false
	}
	return c.value(i)
}

// Value returns the current element: a raw span of the array, white space
// excluded.
func (e *Elements) Value() []byte { return e.c.d[e.c.v0:e.c.v1] }

// Offset returns the offset of the current element in the array.
func (e *Elements) Offset() int { return e.c.v0 }

// Index returns the position of the current element: 0 for the first. Once
// Next has returned false, Index()+1 is the number of elements read.
func (e *Elements) Index() int { return e.c.n - 1 }

// Err returns nil when the walk ended at the array's closing bracket (or has
// not ended yet), else a *SyntaxError with the offset of the fault in the
// array: arr was not one array, or not valid JSON.
func (e *Elements) Err() error { return e.c.error() }
