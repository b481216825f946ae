package codec

// The scanner: one pass over a frame validates it as JSON and, for the
// top-level object (or each object of a top-level array), records the spans
// of the envelope members (envelope.go classifies them).
//
// Structure:
//
//   - value is the iterative validator for any JSON value. Nesting is kept in
//     a bit stack (one bit per level: 1 object, 0 array) whose size is fixed by
//     MaxDepth when the Scanner is made, so hostile nesting costs no memory
//     and is refused at depth MaxDepth+1. Its loop has two entry points: the
//     top (a value is expected) and member (a name and its colon, then a
//     value); it keeps all its state in locals and handles the tokens of
//     compact JSON without a call, since a call in Go spills every live
//     register.
//   - The hot paths are small inlinable functions: stringEnd (plain string
//     bodies, 8 bytes per step with SWAR on little-endian loads), intEnd
//     (integers without fraction or exponent), skipWS (returns at once when
//     the next byte is not white space, the case of compact JSON). Each has
//     an out-of-line partner for the rest: scanStringSlow (escapes, non-ASCII
//     UTF-8, the tail of the frame), scanNumber, skipWSSlow.
//   - Scan walks the top level itself (object, batch, or other value) and
//     hands each envelope object to Scanner.envelope (envelope.go).
//
// Invariants: every index i satisfies 0 <= i <= len(d); a function that
// returns (i, err) with err != nil reports in i the offset of the offending
// byte (len(d) when the frame ended too soon); a fast path that cannot
// decide returns a negative index (stringEnd: ^j, where its slow partner
// resumes) and never an error. Errors on the way are the sentinels of
// errors.go; only Scan wraps one in a *SyntaxError, so Valid never
// allocates.

import "math/bits"

// Scanner validates frames as JSON (RFC 8259) in one pass and records the
// envelope members of each message. The zero value is not ready: use
// NewScanner. A Scanner is not safe for concurrent use; one per reader.
type Scanner struct {
	limits  Limits
	msgs    []Message
	stack   []uint64 // bit d set: the container at depth d is an object
	scratch [16]byte // unescaped member names and "jsonrpc" values
	// jsonrpc1: JSON-RPC 1.0 objects are accepted (SetJSONRPC1).
	jsonrpc1 bool
}

// NewScanner returns a scanner bounded by l (nil: defaults). It allocates
// MaxDepth/64+1 words for its nesting stack, once.
func NewScanner(l *Limits) *Scanner {
	s := &Scanner{limits: l.WithDefaults()}
	s.stack = make([]uint64, s.limits.MaxDepth/64+1)
	s.msgs = make([]Message, 0, 1)
	return s
}

// Scan validates frame and classifies what it holds. It returns the messages
// (one for a single value; one per element for a batch, in order) and whether
// the frame was a batch, whose responses must go out as one array. The slice
// and the messages' views are valid until the next call to Scan and as long as
// frame is unchanged.
//
// A frame that is not valid JSON returns a *SyntaxError (answer -32700, id
// null). An empty batch or one longer than MaxBatch returns one KindInvalid
// message with batch false (answer a single error, not an array).
func (s *Scanner) Scan(frame []byte) (msgs []Message, batch bool, err error) {
	d := frame
	s.msgs = s.msgs[:0]
	i := skipWS(d, 0)
	if i >= len(d) {
		return nil, false, &SyntaxError{Offset: int64(i), Err: ErrSyntax}
	}
	switch d[i] {
	case '{':
		s.msgs = append(s.msgs, Message{})
		i, err = s.envelope(d, i, 1, &s.msgs[0])
	case '[':
		v1 := s.jsonrpc1
		s.jsonrpc1 = false // batches are JSON-RPC 2.0 only
		i, batch, err = s.batch(d, i)
		s.jsonrpc1 = v1
	default:
		i, err = s.value(d, i, 0)
		s.msgs = append(s.msgs, Message{Kind: KindInvalid, Err: errNotObject})
	}
	if err == nil {
		if i = skipWS(d, i); i < len(d) {
			err = ErrTrailingData
		}
	}
	if err != nil {
		s.msgs = s.msgs[:0]
		return nil, false, &SyntaxError{Offset: int64(i), Err: err}
	}
	return s.msgs, batch, nil
}

// batch scans the top-level array at d[i] == '[': one message per element,
// up to MaxBatch; the elements beyond are only validated.
func (s *Scanner) batch(d []byte, i int) (int, bool, error) {
	if s.limits.MaxDepth < 1 {
		return i, false, ErrTooDeep
	}
	i = skipWS(d, i+1)
	if i < len(d) && d[i] == ']' {
		s.msgs = append(s.msgs, Message{Kind: KindInvalid, Err: errEmptyBatch})
		return i + 1, false, nil
	}
	var err error
	count := 0
	for {
		i = skipWS(d, i)
		if i >= len(d) {
			return i, false, ErrSyntax
		}
		switch {
		case count >= s.limits.MaxBatch:
			i, err = s.value(d, i, 1)
		case d[i] == '{':
			s.msgs = append(s.msgs, Message{})
			i, err = s.envelope(d, i, 2, &s.msgs[len(s.msgs)-1])
		default:
			i, err = s.value(d, i, 1)
			s.msgs = append(s.msgs, Message{Kind: KindInvalid, Err: errNotObject})
		}
		if err != nil {
			return i, false, err
		}
		count++
		if i = skipWS(d, i); i >= len(d) {
			return i, false, ErrSyntax
		}
		if d[i] == ',' {
			i++
			continue
		}
		if d[i] != ']' {
			return i, false, ErrSyntax
		}
		i++
		break
	}
	if count > s.limits.MaxBatch {
		s.msgs = append(s.msgs[:0], Message{Kind: KindInvalid, Err: errBatchTooLong})
		return i, false, nil
	}
	return i, true, nil
}

// Valid reports whether data is one valid JSON value (RFC 8259, strict UTF-8
// and escapes), nested at most MaxDepth deep, with only white space around it.
// It does not allocate.
func (s *Scanner) Valid(data []byte) bool {
	i, err := s.value(data, skipWS(data, 0), 0)
	return err == nil && skipWS(data, i) == len(data)
}

// value validates the JSON value at d[i] (after optional white space),
// nested inside depth containers, and returns the index just past it.
//
// The common tokens of compact JSON (plain strings, integers, literals,
// punctuation) are handled in this loop without a call: in Go a call spills
// every live register, and the loop keeps its whole state in locals.
func (s *Scanner) value(d []byte, i, depth int) (int, error) {
	var (
		base     = depth
		maxDepth = s.limits.MaxDepth
		stack    = s.stack
		inObj    bool // the innermost open container is an object
		err      error
	)
values:
	for {
		// Here a value is expected at d[i].
		if i = skipWS(d, i); i >= len(d) {
			return i, ErrSyntax
		}
		switch c := d[i]; {
		case c == '"':
			if j := stringEnd(d, i+1); j >= 0 {
				i = j
			} else if i, _, err = scanStringSlow(d, ^j); err != nil {
				return i, err
			}
		case c-'0' < 10 || c == '-':
			if j := intEnd(d, i); j >= 0 {
				i = j
			} else if i, err = scanNumber(d, i); err != nil {
				return i, err
			}
		case c == '{' || c == '[':
			if depth++; depth > maxDepth {
				return i, ErrTooDeep
			}
			inObj = c == '{'
			w, bit := depth>>6, uint64(1)<<(depth&63)
			if inObj {
				stack[w] |= bit
			} else {
				stack[w] &^= bit
			}
			if i = skipWS(d, i+1); i < len(d) && d[i] == c+2 { // '}' or ']'
				i++
				depth--
				inObj = stack[depth>>6]&(1<<(depth&63)) != 0
				break
			}
			if inObj {
				goto member
			}
			continue
		case c == 't':
			if len(d)-i < 4 || string(d[i:i+4]) != "true" {
				return i, ErrSyntax
			}
			i += 4
		case c == 'f':
			if len(d)-i < 5 || string(d[i:i+5]) != "false" {
				return i, ErrSyntax
			}
			i += 5
		case c == 'n':
			if len(d)-i < 4 || string(d[i:i+4]) != "null" {
				return i, ErrSyntax
			}
			i += 4
		default:
			return i, ErrSyntax
		}
		// A value ended at d[i]: close the containers it ends, then go on
		// to the next value or member.
		for {
			if depth == base {
				return i, nil
			}
			if i = skipWS(d, i); i >= len(d) {
				return i, ErrSyntax
			}
			c := d[i]
			i++
			if c == ',' {
				if inObj {
					goto member
				}
				continue values
			}
			if inObj && c != '}' || !inObj && c != ']' {
				return i - 1, ErrSyntax
			}
			depth--
			inObj = stack[depth>>6]&(1<<(depth&63)) != 0
		}
	member:
		// A member name and its colon, then the value at the loop's top.
		if i = skipWS(d, i); i >= len(d) || d[i] != '"' {
			return i, ErrSyntax
		}
		if j := stringEnd(d, i+1); j >= 0 {
			i = j
		} else if i, _, err = scanStringSlow(d, ^j); err != nil {
			return i, err
		}
		if i = skipWS(d, i); i >= len(d) || d[i] != ':' {
			return i, ErrSyntax
		}
		i++
	}
}

// SWAR constants: one byte repeated in each of the 8 lanes of a word.
const (
	lanes01 = 0x0101010101010101
	lanes80 = 0x8080808080808080
)

// stringStop returns a word whose lane k has its high bit set if byte k of x
// is '"', '\\', a control character (< 0x20) or not ASCII (>= 0x80). A lane
// equal to c becomes zero in x^c and borrows in the subtraction; a lane below
// 0x20 borrows in x-0x20; a lane >= 0x80 has its high bit set in x and in
// both xors. Borrows can flag lanes above a flagged one, so only the lowest
// flag is exact: that is the only one the callers use.
func stringStop(x uint64) uint64 {
	q := x ^ (lanes01 * '"')
	b := x ^ (lanes01 * '\\')
	// Two ORs of two: the flags come one step sooner than from a chain
	// of three, and callers wait on them.
	return (((q - lanes01) | (b - lanes01)) | ((x - lanes01*0x20) | x)) & lanes80
}

// strSafe marks the bytes a string body holds as themselves: not '"', '\\',
// a control character, or a byte of a multi-byte UTF-8 sequence.
var strSafe = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// stringEnd is the fast path of string scanning. For the string body
// starting at d[i] (just past the opening quote) it returns the index just
// past the closing quote if every byte before it is plain (see strSafe);
// otherwise ^j < 0, where scanStringSlow resumes at d[j]: the first byte
// that is not plain (an escape, a control character, non-ASCII UTF-8),
// the end of a string the frame cuts off, or, with wide scanning
// (wideBuild), where a long string's first 64 bytes end. No escape
// comes before j.
func stringEnd(d []byte, i int) int {
	end := len(d)
	if wideBuild {
		end = min(end, i+64) // the rest of a long string: stringWide, 64 bytes at a time
	}
	for end-i >= 8 {
		if m := stringStop(word(d, i)); m != 0 {
			if i += bits.TrailingZeros64(m) >> 3; d[i] == '"' {
				return i + 1
			}
			return ^i
		}
		i += 8 // i alone carries the loop: the word test is a branch
	}
	if n := len(d) - i; n < 8 && len(d) >= 8 {
		// The frame's last n bytes (a value's closing quote is often
		// among them): the word that ends the frame, shifted so that
		// d[i] is its first lane, the lanes past the end masked off.
		m := stringStop(word(d, len(d)-8)>>(64-8*n)) & (1<<(8*n) - 1)
		if m != 0 {
			if i += bits.TrailingZeros64(m) >> 3; d[i] == '"' {
				return i + 1
			}
		}
	}
	return ^i
}

// scanStringSlow scans a string body from d[i], inside the body, with no
// escape before i. It returns the index just past the closing quote and
// whether the body holds escape sequences.
func scanStringSlow(d []byte, i int) (int, bool, error) {
	esc := false
	if wideStrings && len(d)-i >= 32 {
		// The whole string 64 bytes at a time, escapes and UTF-8
		// included; a string that is not valid is left to the loop
		// below, which finds the fault and its offset.
		var j int
		if j, esc = stringWide(d, i, wide512); j >= 0 {
			return j, esc, nil
		}
		i = ^j
	}
	for {
		// Find the next byte that is not plain: 8 at a time, then the
		// tail.
		if len(d)-i >= 8 {
			m := stringStop(word(d, i))
			if m == 0 {
				i += 8
				continue
			}
			i += bits.TrailingZeros64(m) >> 3
		} else {
			for i < len(d) && strSafe[d[i]] {
				i++
			}
			if i >= len(d) {
				return i, esc, ErrSyntax
			}
		}
		switch c := d[i]; {
		case c == '"':
			return i + 1, esc, nil
		case c == '\\':
			esc = true
			if i+1 < len(d) && simpleEscape[d[i+1]] { // \n, \", \\ …: no call
				i += 2
				continue
			}
			var err error
			if i, err = escapeSlow(d, i); err != nil {
				return i, esc, err
			}
		case c < 0x20:
			return i, esc, ErrSyntax
		default:
			if n := utf8Short(d, i); n > 0 { // most accents and scripts: no call
				i += n
				continue
			}
			var err error
			if i, err = utf8Slow(d, i); err != nil {
				return i, esc, err
			}
		}
	}
}

// utf8Short returns the length of the two- or three-byte UTF-8 sequence
// at d[i] >= 0x80 if it is valid and its lead byte bounds its second byte
// no further (not 0xe0, overlong forms, nor 0xed, surrogates); else 0,
// and utf8Slow decides.
func utf8Short(d []byte, i int) int {
	c := d[i]
	if c-0xc2 < 0xe0-0xc2 && i+1 < len(d) && d[i+1]&0xc0 == 0x80 {
		return 2
	}
	if c-0xe1 < 0xf0-0xe1 && c != 0xed && i+2 < len(d) && d[i+1]&0xc0 == 0x80 && d[i+2]&0xc0 == 0x80 {
		return 3
	}
	return 0
}

// simpleEscape marks the bytes that make a two-byte escape after '\\'.
var simpleEscape = [256]bool{'"': true, '\\': true, '/': true, 'b': true, 'f': true, 'n': true, 'r': true, 't': true}

// escapeSlow checks the escape sequence at d[i] == '\\' and returns the
// index just past it. Lone surrogates (\ud800) are accepted: see doc.go.
func escapeSlow(d []byte, i int) (int, error) {
	if len(d)-i < 2 {
		return len(d), ErrSyntax
	}
	switch d[i+1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return i + 2, nil
	case 'u':
		if len(d)-i < 6 {
			return len(d), ErrSyntax
		}
		if hexVal[d[i+2]]|hexVal[d[i+3]]|hexVal[d[i+4]]|hexVal[d[i+5]] > 0xf {
			return i, ErrInvalidEscape
		}
		return i + 6, nil
	}
	return i, ErrInvalidEscape
}

// hexVal maps a hex digit to its value and any other byte to 0xff.
var hexVal = func() (t [256]byte) {
	for c := range t {
		switch {
		case '0' <= c && c <= '9':
			t[c] = byte(c - '0')
		case 'a' <= c && c <= 'f':
			t[c] = byte(c - 'a' + 10)
		case 'A' <= c && c <= 'F':
			t[c] = byte(c - 'A' + 10)
		default:
			t[c] = 0xff
		}
	}
	return t
}()

// utf8Slow validates the run of multi-byte UTF-8 sequences starting at
// d[i] >= 0x80 and returns the index of the first ASCII byte after it (or
// len(d)). It rejects what RFC 3629 forbids: stray continuation bytes,
// overlong forms, encoded surrogates (U+D800…U+DFFF), code points above
// U+10FFFF and truncated sequences. The offset of an error is the sequence's
// first byte.
func utf8Slow(d []byte, i int) (int, error) {
	for i < len(d) {
		c := d[i]
		if c < 0x80 {
			return i, nil
		}
		var size int
		lo, hi := byte(0x80), byte(0xbf) // range of the second byte
		switch {
		case c < 0xc2: // continuation byte, or overlong 2-byte form
			return i, ErrInvalidUTF8
		case c < 0xe0:
			size = 2
		case c < 0xf0:
			size = 3
			if c == 0xe0 {
				lo = 0xa0 // overlong
			} else if c == 0xed {
				hi = 0x9f // surrogates
			}
		case c < 0xf5:
			size = 4
			if c == 0xf0 {
				lo = 0x90 // overlong
			} else if c == 0xf4 {
				hi = 0x8f // above U+10FFFF
			}
		default:
			return i, ErrInvalidUTF8
		}
		if len(d)-i < size || d[i+1] < lo || d[i+1] > hi {
			return i, ErrInvalidUTF8
		}
		for k := 2; k < size; k++ {
			if d[i+k]&0xc0 != 0x80 {
				return i, ErrInvalidUTF8
			}
		}
		i += size
	}
	return i, nil
}

// skipWS returns the index of the first byte at or after d[i] that is not
// JSON white space (space, tab, LF, CR), or len(d).
func skipWS(d []byte, i int) int {
	if i >= len(d) || d[i] > ' ' {
		return i
	}
	return skipWSSlow(d, i)
}

func skipWSSlow(d []byte, i int) int {
	for len(d)-i >= 8 {
		x := word(d, i)
		// A lane is white space if it equals one of the four bytes; zero
		// lanes of x^c are found exactly (no borrows) by the add-and-or trick.
		ws := eqLanes(x, ' ') | eqLanes(x, '\n') | eqLanes(x, '\t') | eqLanes(x, '\r')
		if other := ^ws & lanes80; other != 0 {
			return i + bits.TrailingZeros64(other)>>3
		}
		i += 8
	}
	for i < len(d) && (d[i] == ' ' || d[i] == '\n' || d[i] == '\t' || d[i] == '\r') {
		i++
	}
	return i
}

// eqLanes returns a word with the high bit of lane k set exactly when byte k
// of x equals c.
func eqLanes(x uint64, c byte) uint64 {
	const low7 = lanes01 * 0x7f
	v := x ^ (lanes01 * uint64(c))
	return ^((v&low7 + low7) | v) & lanes80
}

// intEnd is the inlinable fast path of scanNumber: for an integer
// [1-9][0-9]* at d[i] that no fraction or exponent follows, it returns the
// index just past it; for anything else, -1.
func intEnd(d []byte, i int) int {
	if d[i]-'1' >= 9 {
		return -1
	}
	for i++; i < len(d) && d[i]-'0' < 10; i++ {
	}
	if i < len(d) && (d[i] == '.' || d[i]|0x20 == 'e') {
		return -1
	}
	return i
}

// scanNumber scans the number at d[i] per the RFC 8259 grammar
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? and returns the index just
// past it. What follows is the caller's business ("01" fails there).
func scanNumber(d []byte, i int) (int, error) {
	if d[i] == '-' {
		if i++; i >= len(d) {
			return i, ErrSyntax
		}
	}
	switch c := d[i]; {
	case c == '0':
		i++
	case c-'1' < 9:
		i = digits(d, i+1)
	default:
		return i, ErrSyntax
	}
	if i < len(d) && d[i] == '.' {
		j := digits(d, i+1)
		if j == i+1 {
			return j, ErrSyntax
		}
		i = j
	}
	if i < len(d) && d[i]|0x20 == 'e' {
		if i++; i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		j := digits(d, i)
		if j == i {
			return j, ErrSyntax
		}
		i = j
	}
	return i, nil
}

// digits returns the index of the first byte at or after d[i] that is not
// an ASCII digit, or len(d).
func digits(d []byte, i int) int {
	for len(d)-i >= 8 {
		x := word(d, i)
		// Lane k is not a digit if its byte is < '0' (the high bit is lost
		// in (x|0x80)-'0'), > '9' (the high bit appears in (x&0x7f)+0x46),
		// or not ASCII. No lane borrows or carries into the next.
		lt := ^((x | lanes80) - lanes01*'0')
		gt := (x &^ lanes80) + lanes01*0x46
		if m := (lt | gt | x) & lanes80; m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
		i += 8
	}
	for i < len(d) && d[i]-'0' < 10 {
		i++
	}
	return i
}
