package conn

import (
	"bytes"
	"strings"

	"github.com/mcpwire/mcpwire/codec"
)

// Malformed responses. A message of the peer that can only be meant as a
// response to one of our calls — it has no method, its id is a number this
// session issued and still waits for — but that breaks the rules fails
// that call at once with malformedResponse, instead of leaving its caller
// waiting for a deadline: both result and error, neither of them, an error
// that is not an object or whose code is not an integer or whose message
// is not a string, a jsonrpc other than "2.0", a duplicated member. One
// whose id cannot be read, or names no call waiting, is logged at debug
// level and dropped, as every response that reaches no caller is.

// MalformedResponsePrefix begins the message of the error a call fails
// with when the peer's response to it is malformed: a *codec.Error of code
// codec.CodeInternalError (-32603) whose message goes on to say what was
// wrong ("malformed response: both result and error", …).
const MalformedResponsePrefix = "malformed response: "

// malformedResponse returns the error a call fails with when its response
// is malformed for the reason why.
func malformedResponse(why string) *codec.Error {
	return &codec.Error{Code: codec.CodeInternalError, Message: MalformedResponsePrefix + why}
}

// errNoMember is the codec's answer to an object with an id and neither
// method, result nor error: to a peer, an invalid request, but to us,
// when its id names a call waiting, a response that lost its outcome.
// It is found by scanning such an object once, so that it is the codec's
// own value whatever its text.
var errNoMember = func() *codec.Error {
	msgs, _, err := codec.NewScanner(nil).Scan([]byte(`{"jsonrpc":"2.0","id":1}`))
	if err != nil || len(msgs) != 1 || msgs[0].Kind != codec.KindInvalid {
		panic("conn: the codec classifies a bare id unexpectedly")
	}
	return msgs[0].Err
}()

// malformedReason says what is wrong with the would-be response m
// (codec.KindBadResponse, or a KindInvalid without method).
func malformedReason(m *codec.Message) string {
	if m.Err == errNoMember {
		return "neither result nor error"
	}
	why := strings.TrimPrefix(m.Err.Message, "Invalid Request: ")
	if why == "malformed response" { // the codec's catch-all for responses
		why = "it needs exactly one of result and error, and error must be an object"
	}
	return why
}

// lostResponse reports whether the invalid message m may be a response
// that lost its outcome: an object with a readable id and neither method,
// result nor error.
func lostResponse(m *codec.Message) bool {
	return m.Err == errNoMember && m.ID != nil
}

// errorOutcome reads an error object as received (valid JSON, an object:
// the codec checked both). Its code must be present and an integer, its
// message, if present, a string, and no member may be repeated; otherwise
// the result is malformedResponse. data is kept verbatim (a copy).
func errorOutcome(obj []byte) *codec.Error {
	var (
		it                       codec.Members
		code                     codec.Code
		msg                      string
		data                     []byte
		hasCode, hasMsg, hasData bool
		scratch                  [8]byte
	)
	for it.Reset(obj); it.Next(); {
		v := it.Value()
		switch name := it.Name(scratch[:0]); string(name) {
		case "code":
			c, ok := parseCode(v)
			if !ok {
				return malformedResponse("error.code must be an integer")
			}
			if hasCode {
				return malformedResponse("duplicated member in error")
			}
			code, hasCode = c, true
		case "message":
			if v[0] != '"' {
				return malformedResponse("error.message must be a string")
			}
			if hasMsg {
				return malformedResponse("duplicated member in error")
			}
			s, err := codec.Unquote(v)
			if err != nil {
				return malformedResponse("error.message must be a string")
			}
			msg, hasMsg = string(s), true
		case "data":
			if hasData {
				return malformedResponse("duplicated member in error")
			}
			data, hasData = v, true
		}
	}
	if it.Err() != nil {
		return malformedResponse("error must be an object")
	}
	if !hasCode {
		return malformedResponse("error.code is missing")
	}
	e := &codec.Error{Code: code, Message: msg}
	if hasData {
		e.Data = codec.Raw(bytes.Clone(data))
	}
	return e
}

// parseCode reads a JSON number that must be an integer in the range of a
// codec.Code: digits only, an optional minus sign.
func parseCode(v []byte) (codec.Code, bool) {
	neg := len(v) > 0 && v[0] == '-'
	if neg {
		v = v[1:]
	}
	if len(v) == 0 || len(v) > 10 {
		return 0, false
	}
	var n int64
	for _, b := range v {
		if b < '0' || b > '9' {
			return 0, false
		}
		n = n*10 + int64(b-'0')
	}
	if neg {
		n = -n
	}
	if n < -1<<31 || n > 1<<31-1 {
		return 0, false
	}
	return codec.Code(n), true
}
