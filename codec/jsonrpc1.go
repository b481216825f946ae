package codec

import "bytes"

// JSON-RPC 1.0 objects, accepted beside 2.0 ones by a Scanner with
// SetJSONRPC1 (the 2.0 specification, section 3, asks 2.0 implementations
// to try; real services, Bitcoin Core and its forks among them, still speak
// it). The Scanner's one pass is the same: envelope records whether the
// jsonrpc member says "1.0" (as it notes "2.0": versionOf), and the arms
// of classify that refuse a version other than "2.0" hand the object to
// classify1 when the option is on (judged1). A valid 2.0 object never
// comes here: it takes exactly the tests it took before the option.
//
// The 1.0 rules, where they differ from 2.0 (DESIGN §3 otherwise):
//
//   - A 1.0 object has no jsonrpc member, or "jsonrpc":"1.0".
//   - A request has a string method, params an array (absent or null:
//     none, as Bitcoin Core takes it) and an id that is not null; with
//     "id": null it is a notification, never answered. Without an id
//     member it is refused -32600 (1.0 has no such message).
//   - Params that are an object, or that hold a class hint (a member
//     named __jsonclass__ at any depth: 1.0's class hinting, which the 2.0
//     specification leaves out), are refused -32600, as is any other
//     invalid request, even a notification.
//   - A response carries both result and error, the one not set null;
//     one member alone is taken too.
//   - The answer to a 1.0 object is a 1.0 response (ToJSONRPC1): no
//     jsonrpc member, both result and error, the id echoed byte for byte.
//   - The elements of a batch are never 1.0 objects: batches are 2.0 only.

// Invalid-request variants of JSON-RPC 1.0. Shared and read-only.
var (
	errParamsNotArray = NewError(CodeInvalidRequest, "Invalid Request: JSON-RPC 1.0 params must be an array")
	errNoID1          = NewError(CodeInvalidRequest, "Invalid Request: a JSON-RPC 1.0 request needs an id (null for a notification)")
	errClassHint      = NewError(CodeInvalidRequest, "Invalid Request: JSON-RPC 1.0 class hints (__jsonclass__) are not supported")
)

// judged1 classifies m as a JSON-RPC 1.0 object and reports true if the
// option is on and m is one (its version is absent or 1.0); else it
// reports false and leaves m to classify.
func (s *Scanner) judged1(m *Message, st *envelopeState) bool {
	if !s.jsonrpc1 || !st.isVersion1() {
		return false
	}
	s.classify1(m, st)
	return true
}

// SetJSONRPC1 makes the Scanner accept JSON-RPC 1.0 objects beside 2.0
// ones (on) or refuse them -32600 as 2.0 requires (off, the default): see
// Message.JSONRPC1. Batch elements are always judged as 2.0.
func (s *Scanner) SetJSONRPC1(on bool) { s.jsonrpc1 = on }

// isVersion1 reports whether the object's jsonrpc member is absent or
// "1.0".
func (st *envelopeState) isVersion1() bool { return !st.has(memJSONRPC) || st.version == '1' }

// classify1 is classify for a JSON-RPC 1.0 object: see the rules above.
// The checks run in the order classify's do.
func (s *Scanner) classify1(m *Message, st *envelopeState) {
	m.JSONRPC1 = true
	if st.badID || st.idDup {
		m.ID = nil
	}
	idNull := len(m.ID) > 0 && m.ID[0] == 'n'
	switch {
	case st.has(memMethod):
		switch {
		case st.dup:
			m.invalid(errDupMember)
		case st.badMethod:
			m.invalid(errBadMethod)
		case st.badID:
			m.invalid(errBadID)
		case st.badParams, len(m.Params) > 0 && m.Params[0] != '[':
			m.invalid(errParamsNotArray)
		case !st.has(memID):
			m.invalid(errNoID1)
		case s.hasClassHint(m.Params):
			m.invalid(errClassHint)
		case idNull:
			m.Kind, m.ID = KindNotification, nil
		case s.reserved(m):
			m.Kind, m.Err = KindInvalid, errReservedMethod
		default:
			m.Kind = KindRequest
		}
	case st.has(memResult) || st.has(memError):
		m.Kind = KindBadResponse
		errSet := len(m.ErrorObj) > 0 && m.ErrorObj[0] != 'n'
		resSet := len(m.Result) > 0 && m.Result[0] != 'n'
		switch {
		case st.dup:
			m.Err = errDupMember
		case st.badID:
			m.Err = errBadID
		case !st.has(memID), errSet && (resSet || st.errNotObj):
			m.Err = errBadResponse
		case errSet:
			m.Kind = KindError
		case st.has(memResult):
			m.Kind = KindResult
		default: // error null, and no result
			m.Err = errBadResponse
		}
	default:
		m.invalid(errNoMethod)
	}
	m.clearSpans()
}

// classHintName is the member name of 1.0's class hints.
const classHintName = "__jsonclass__"

// hasClassHint reports whether v, a value the Scanner validated, holds an
// object with a member named __jsonclass__ (after unescaping), at any
// depth. A name that unescapes to it holds either "jsonclass" as such or
// an escape: other params are not walked.
func (s *Scanner) hasClassHint(v []byte) bool {
	if len(v) == 0 || !bytes.Contains(v, []byte("jsonclass")) && bytes.IndexByte(v, '\\') < 0 {
		return false
	}
	return classHint(v, s.scratch[:0])
}

// classHint is hasClassHint's walk; its depth is bounded by the Scanner's
// MaxDepth, which v was validated against.
func classHint(v, scratch []byte) bool {
	switch KindOf(v) {
	case ValueObject:
		var m Members
		for m.Reset(v); m.Next(); {
			if string(m.Name(scratch)) == classHintName || classHint(m.Value(), scratch) {
				return true
			}
		}
	case ValueArray:
		var e Elements
		for e.Reset(v); e.Next(); {
			if classHint(e.Value(), scratch) {
				return true
			}
		}
	}
	return false
}

// head2 is how every response the encoders write begins, up to its id.
const head2 = `{"jsonrpc":"2.0","id":`

// ToJSONRPC1 rewrites resp, one response as AppendResult, AppendResultHead,
// AppendResultValue or AppendError write it, into its JSON-RPC 1.0 form, in
// place, and returns it: `{"id":<id>,"result":<r>,"error":null}` or
// `{"id":<id>,"result":null,"error":<e>}`, the id and the values byte for
// byte. The 1.0 form is never longer, so it does not allocate. Anything
// else (no response of these encoders, a batch's array) is returned
// unchanged.
func ToJSONRPC1(resp []byte) []byte {
	const version = len(`"jsonrpc":"2.0",`)
	n := len(resp)
	if n <= len(head2) || string(resp[:len(head2)]) != head2 || resp[n-1] != '}' {
		return resp
	}
	j := idEnd(resp, len(head2)) // just past the id
	if j < 0 {
		return resp
	}
	switch rest := resp[j:]; {
	case bytes.HasPrefix(rest, []byte(`,"result":`)):
		copy(resp[1:], resp[1+version:])
		return append(resp[:n-version-1], `,"error":null}`...)
	case bytes.HasPrefix(rest, []byte(`,"error":`)):
		const result = `"result":null,`
		copy(resp[1:], resp[1+version:j+1])              // `"id":<id>,`
		copy(resp[j+1-version:], result)                 // then result
		copy(resp[j+1-version+len(result):], resp[j+1:]) // then the error member
		return resp[:n-version+len(result)]
	}
	return resp
}

// idEnd returns the index just past the id (a string, a number or null)
// at resp[i], or -1.
func idEnd(resp []byte, i int) int {
	switch c := resp[i]; {
	case c == '"':
		j, _, err := scanStringSlow(resp, i+1)
		if err != nil {
			return -1
		}
		return j
	case c == 'n':
		if !bytes.HasPrefix(resp[i:], []byte("null")) {
			return -1
		}
		return i + 4
	}
	j, err := scanNumber(resp, i)
	if err != nil {
		return -1
	}
	return j
}

// AppendRequest1 appends a JSON-RPC 1.0 request, `{"id":<id>,"method":…,
// "params":[…]}`, or with id nil a 1.0 notification (id null). method is
// plain text (escaped as needed); params is a raw JSON array (nil or
// empty: `[]`, as 1.0 requires params).
func AppendRequest1(dst, id []byte, method string, params []byte) []byte {
	dst = append(dst, `{"id":`...)
	dst = appendRaw(dst, id)
	dst = append(dst, `,"method":`...)
	dst = appendString(dst, method)
	dst = append(dst, `,"params":`...)
	if len(params) == 0 {
		dst = append(dst, "[]"...)
	} else {
		dst = append(dst, params...)
	}
	return append(dst, '}')
}
