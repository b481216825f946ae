package codec

import (
	"math/bits"
)

// The envelope: Scanner.envelope scans one object whose members are the
// JSON-RPC envelope, validating every member value as it goes (one pass),
// and classify applies the wire rules of DESIGN §3 to what it saw.

// member names an envelope member; memNone is any other member.
type member uint8

const (
	memNone member = iota
	memJSONRPC
	memID
	memMethod
	memParams
	memResult
	memError
)

// memberOf matches an unescaped member name, exactly and case-sensitively.
func memberOf(name []byte) member {
	switch len(name) {
	case 2:
		if string(name) == "id" {
			return memID
		}
	case 5:
		if string(name) == "error" {
			return memError
		}
	case 6:
		switch string(name) {
		case "method":
			return memMethod
		case "params":
			return memParams
		case "result":
			return memResult
		}
	case 7:
		if string(name) == "jsonrpc" {
			return memJSONRPC
		}
	}
	return memNone
}

// envelopeState is what Scanner.envelope saw besides the spans it stores in
// the Message.
type envelopeState struct {
	seen      uint8 // bit 1<<member for each envelope member present
	dup       bool  // an envelope member appeared twice
	idDup     bool  // id appeared twice
	version   byte  // jsonrpc is the string "<version>.0" (versionOf)
	badID     bool  // id is not a string, number or null
	badMethod bool  // method is not a string
	badParams bool  // params is a scalar
	errNotObj bool  // error is not an object
}

func (st *envelopeState) has(m member) bool { return st.seen&(1<<m) != 0 }

// envelope scans the object at d[i] == '{' at nesting depth (1 at the top,
// 2 inside a batch), fills m (which must be zero), and returns the index
// just past the object.
//
// Fast path: a plain member name shorter than 8 bytes is matched as the word
// already loaded to find its closing quote (memberWord); plain string and
// integer values are scanned inline. Anything else goes through
// memberSlow, scanStringSlow and Scanner.value.
func (s *Scanner) envelope(d []byte, i, depth int, m *Message) (int, error) {
	if depth > s.limits.MaxDepth {
		return i, ErrTooDeep
	}
	var st envelopeState
	if i = skipWS(d, i+1); i < len(d) && d[i] == '}' {
		s.classify(m, &st)
		return i + 1, nil
	}
	for {
		// Member name.
		if i = skipWS(d, i); i >= len(d) || d[i] != '"' {
			return i, ErrSyntax
		}
		var (
			mem member
			esc bool
			err error
		)
		if x, n := shortName(d, i+1); n >= 0 {
			mem, i = memberWord(x, n), i+n+2
		} else if mem, i, err = s.memberSlow(d, i+1); err != nil {
			return i, err
		}
		if i = skipWS(d, i); i >= len(d) || d[i] != ':' {
			return i, ErrSyntax
		}
		// Member value.
		if i = skipWS(d, i+1); i >= len(d) {
			return i, ErrSyntax
		}
		start := i
		if d[i] == '"' {
			if j := stringEnd(d, i+1); j >= 0 {
				i = j
			} else if i, esc, err = scanStringSlow(d, ^j); err != nil {
				return i, err
			}
		} else if j := intEnd(d, i); j >= 0 {
			i = j
		} else if i, err = s.value(d, i, depth); err != nil {
			return i, err
		}
		if mem != memNone {
			s.record(m, &st, mem, d[start:i], esc)
		}
		// Next member or end.
		if i = skipWS(d, i); i >= len(d) {
			return i, ErrSyntax
		}
		if d[i] == ',' {
			i++
			continue
		}
		if d[i] != '}' {
			return i, ErrSyntax
		}
		s.classify(m, &st)
		return i + 1, nil
	}
}

// shortName is the inlinable fast path of member names. For the name body
// starting at d[i] it returns, if the body is plain and shorter than 8
// bytes, its length n and the 8 bytes from d[i] as a little-endian word;
// otherwise n < 0.
func shortName(d []byte, i int) (x uint64, n int) {
	if len(d)-i >= 8 {
		x = word(d, i)
		m := stringStop(x)
		if n = bits.TrailingZeros64(m) >> 3; d[i+n&7] == '"' { // n is 8 if m == 0
			return x, n
		}
	}
	return 0, -1
}

// Envelope member names as little-endian words (memberWord).
const (
	wordID      = 'i' | 'd'<<8
	wordError   = 'e' | 'r'<<8 | 'r'<<16 | 'o'<<24 | 'r'<<32
	wordMethod  = 'm' | 'e'<<8 | 't'<<16 | 'h'<<24 | 'o'<<32 | 'd'<<40
	wordParams  = 'p' | 'a'<<8 | 'r'<<16 | 'a'<<24 | 'm'<<32 | 's'<<40
	wordResult  = 'r' | 'e'<<8 | 's'<<16 | 'u'<<24 | 'l'<<32 | 't'<<40
	wordJSONRPC = 'j' | 's'<<8 | 'o'<<16 | 'n'<<24 | 'r'<<32 | 'p'<<40 | 'c'<<48
)

// memberWord matches the name of n < 8 bytes that starts word x (from
// shortName). Masked, the word holds the length too: a name's bytes are
// never zero.
func memberWord(x uint64, n int) member {
	switch x & (1<<(8*n) - 1) {
	case wordJSONRPC:
		return memJSONRPC
	case wordID:
		return memID
	case wordMethod:
		return memMethod
	case wordParams:
		return memParams
	case wordResult:
		return memResult
	case wordError:
		return memError
	}
	return memNone
}

// memberSlow scans the member name whose body starts at d[i] when
// shortName could not: long names, escapes, non-ASCII, the end of the frame.
// It returns the member and the index just past the closing quote.
func (s *Scanner) memberSlow(d []byte, i int) (member, int, error) {
	start := i
	i, esc, err := scanStringSlow(d, i)
	if err != nil {
		return memNone, i, err
	}
	return s.memberName(d[start:i-1], esc), i, nil
}

// memberName matches a raw member name (the body between the quotes). Only a
// name with escapes is unescaped, into the scanner's scratch buffer; a body
// longer than 64 bytes unescapes to more than 10 bytes (an escape is at most
// 6 bytes) and so cannot be an envelope member.
func (s *Scanner) memberName(raw []byte, esc bool) member {
	if !esc {
		return memberOf(raw)
	}
	if len(raw) > 64 {
		return memNone
	}
	name, ok := s.unescapeShort(raw)
	if !ok {
		return memNone
	}
	return memberOf(name)
}

// unescapeShort unescapes a string body into the scratch buffer if it
// unescapes to at most 8 bytes; ok is false otherwise.
func (s *Scanner) unescapeShort(raw []byte) (out []byte, ok bool) {
	out, used := appendUnescapedMax(s.scratch[:0], raw, 9)
	if used < len(raw) || len(out) > 8 {
		return nil, false
	}
	return out, true
}

// record notes the envelope member mem whose raw value is v (esc: v is a
// string with escapes).
func (s *Scanner) record(m *Message, st *envelopeState, mem member, v []byte, esc bool) {
	bit := uint8(1) << mem
	if st.seen&bit != 0 {
		st.dup = true
		st.idDup = st.idDup || mem == memID
	}
	st.seen |= bit
	c := v[0]
	switch mem {
	case memJSONRPC:
		st.version = 0
		if c == '"' {
			body := v[1 : len(v)-1]
			if esc {
				body, _ = s.unescapeShort(body)
			}
			st.version = versionOf(body)
		}
	case memID:
		// v is valid JSON: a leading 'n' is null, '-' or a digit a number.
		if c == '"' || c == 'n' || c == '-' || c-'0' < 10 {
			m.ID = v
		} else {
			st.badID = true
		}
	case memMethod:
		if c == '"' {
			m.Method = v[1 : len(v)-1]
			m.MethodEscaped = esc
		} else {
			st.badMethod = true
		}
	case memParams:
		switch c {
		case '[', '{':
			m.Params = v
		case 'n':
			m.Params = nil // null params are absent params
		default:
			st.badParams = true
		}
	case memResult:
		m.Result = v
	case memError:
		m.ErrorObj = v
		st.errNotObj = c != '{'
	}
}

// classify applies the envelope rules to a scanned object. On entry m holds
// the spans recorded; on return its Kind, Err and ID are final.
//
// An object with a method member is a request or notification; one without
// method but with result or error is a response; anything else is invalid.
// The checks run in a fixed order and the first failure names the error:
// duplicated member, jsonrpc, method, id, params.
//
// With SetJSONRPC1, an object whose version is not 2.0 may be a JSON-RPC
// 1.0 one: classify1 (jsonrpc1.go) judges it, from the arms that refuse a
// bad version, so that a valid 2.0 message takes no test more.
func (s *Scanner) classify(m *Message, st *envelopeState) {
	// The id is kept only if it was read and is the only one: with two ids
	// the answer carries id null, as an echo of the wrong id is not safe.
	if st.badID || st.idDup {
		m.ID = nil
	}
	switch {
	case st.has(memMethod):
		switch {
		case st.dup || st.version != '2':
			switch {
			case s.judged1(m, st):
				return
			case st.dup:
				m.invalid(errDupMember)
			default:
				m.invalid(errBadVersion)
			}
		case st.badMethod:
			m.invalid(errBadMethod)
		case st.badID:
			m.invalid(errBadID)
		case st.badParams:
			m.invalid(errBadParams)
		case !st.has(memID):
			// A notification gets no response, not even for a reserved
			// rpc. name: the router finds no handler and drops it.
			m.Kind = KindNotification
		case s.reserved(m):
			m.Kind, m.Err = KindInvalid, errReservedMethod
		default:
			m.Kind = KindRequest
		}
	case st.has(memResult) || st.has(memError):
		m.Kind = KindBadResponse
		switch {
		case st.dup || st.version != '2':
			switch {
			case s.judged1(m, st):
				return
			case st.dup:
				m.Err = errDupMember
			default:
				m.Err = errBadVersion
			}
		case st.badID:
			m.Err = errBadID
		case !st.has(memID), st.has(memResult) && st.has(memError), st.errNotObj:
			m.Err = errBadResponse
		case st.has(memResult):
			m.Kind = KindResult
		default:
			m.Kind = KindError
		}
	default:
		if st.version != '2' && s.judged1(m, st) {
			return
		}
		m.invalid(errNoMethod)
	}
	m.clearSpans()
}

// versionOf returns the version a jsonrpc member's string body names: its
// first byte if it is "<byte>.0" ('2' for "2.0"), else 0.
func versionOf(body []byte) byte {
	if len(body) == 3 && string(body[1:]) == ".0" {
		return body[0]
	}
	return 0
}

// clearSpans drops the spans a message of m's final Kind does not carry.
func (m *Message) clearSpans() {
	if m.Kind != KindResult {
		m.Result = nil
	}
	if m.Kind != KindError {
		m.ErrorObj = nil
	}
	if m.Kind == KindInvalid || m.Kind == KindBadResponse {
		m.Params = nil
	}
}

// invalid makes m a KindInvalid message answered with e (m.ID stays: it is
// the readable id, or nil).
func (m *Message) invalid(e *Error) {
	m.Kind, m.Err = KindInvalid, e
}

// reserved reports whether the method name, unescaped, begins with "rpc.".
func (s *Scanner) reserved(m *Message) bool {
	name := m.Method
	if m.MethodEscaped {
		name, _ = appendUnescapedMax(s.scratch[:0], name, 4)
	}
	return len(name) >= 4 && string(name[:4]) == "rpc."
}
