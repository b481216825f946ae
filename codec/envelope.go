package codec

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
	versionOK bool  // jsonrpc is the string "2.0"
	badID     bool  // id is not a string, number or null
	badMethod bool  // method is not a string
	badParams bool  // params is a scalar
	errNotObj bool  // error is not an object
}

func (st *envelopeState) has(m member) bool { return st.seen&(1<<m) != 0 }

// envelope scans the object at d[i] == '{' at nesting depth (1 at the top,
// 2 inside a batch), fills m, and returns the index just past the object.
func (s *Scanner) envelope(d []byte, i, depth int, m *Message) (int, error) {
	if depth > s.limits.MaxDepth {
		return i, ErrTooDeep
	}
	*m = Message{}
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
			start = i + 1
			esc   bool
			err   error
		)
		i, esc, err = scanString(d, start)
		if err != nil {
			return i, err
		}
		mem := s.memberName(d[start:i-1], esc)
		if i = skipWS(d, i); i >= len(d) || d[i] != ':' {
			return i, ErrSyntax
		}
		// Member value.
		if i = skipWS(d, i+1); i >= len(d) {
			return i, ErrSyntax
		}
		start = i
		c := d[i]
		if c == '"' {
			i, esc, err = scanString(d, i+1)
		} else {
			i, err = s.value(d, i, depth)
		}
		if err != nil {
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
		st.versionOK = false
		if c == '"' {
			body := v[1 : len(v)-1]
			if esc {
				body, _ = s.unescapeShort(body)
			}
			st.versionOK = string(body) == "2.0"
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
func (s *Scanner) classify(m *Message, st *envelopeState) {
	// The id is kept only if it was read and is the only one: with two ids
	// the answer carries id null, as an echo of the wrong id is not safe.
	if st.badID || st.idDup {
		m.ID = nil
	}
	switch {
	case st.has(memMethod):
		switch {
		case st.dup:
			m.invalid(errDupMember)
		case !st.versionOK:
			m.invalid(errBadVersion)
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
		case st.dup:
			m.Err = errDupMember
		case !st.versionOK:
			m.Err = errBadVersion
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
		m.invalid(errNoMethod)
	}
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
