package httpjson

import (
	"bytes"
	"math"
	"net/http"
	"strconv"

	"github.com/mcpwire/mcpwire/codec"
)

// Status is the HTTP status an answer calls for, and its Retry-After.
type Status struct {
	Code       int // the HTTP status
	RetryAfter int // seconds for Retry-After; -1: no header
}

// StatusOK is the status of an answer that calls for no other.
var StatusOK = Status{http.StatusOK, -1}

// The layout codec.AppendError gives every error response: a session
// writes its answers with it, so an answer that is a single error response
// starts with ResponseHead, then the id, then ErrorMember.
var (
	ResponseHead = []byte(`{"jsonrpc":"2.0","id":`)
	ErrorMember  = []byte(`,"error":`)
)

// StatusOf returns the HTTP status of a JSON-RPC answer written by a
// session (codec's layout, 2.0 or 1.0): 200 unless it is a single error response
// whose code says more to HTTP — -32009 unauthorized → 401, -32010
// forbidden → 403, -32011 too many requests → 429, -32000 overloaded
// carrying data.retryAfterMs → 503, -32004 abandoned by a shutdown → 503
// — the 429 and the 503 of an overload with Retry-After, the retry hint in
// seconds rounded up (from data.retryAfterMs; none without one). A
// batch's array is 200. It looks at the error object only: a result is
// never scanned.
func StatusOf(msg []byte) Status {
	obj := errorObject(msg)
	if obj == nil {
		return StatusOK
	}
	code, retryMs := errorFields(obj)
	switch {
	case code == codec.CodeUnauthorized:
		return Status{http.StatusUnauthorized, -1}
	case code == codec.CodeForbidden:
		return Status{http.StatusForbidden, -1}
	case code == codec.CodeTooManyRequests:
		return Status{http.StatusTooManyRequests, retrySeconds(retryMs)}
	case code == codec.CodeOverloaded && retryMs >= 0:
		return Status{http.StatusServiceUnavailable, retrySeconds(retryMs)}
	case code == codec.CodeAbandoned:
		return Status{http.StatusServiceUnavailable, retrySeconds(retryMs)}
	}
	return StatusOK
}

// ErrorCode returns the code of a JSON-RPC answer written by a session
// (codec's layout) that is a single error response; false for anything
// else (a result, a batch's array).
func ErrorCode(msg []byte) (codec.Code, bool) {
	obj := errorObject(msg)
	if obj == nil {
		return 0, false
	}
	code, _ := errorFields(obj)
	return code, true
}

// The layout of a single JSON-RPC 1.0 error response (codec.ToJSONRPC1):
// the head, the id, then responseMember1.
var (
	responseHead1 = []byte(`{"id":`)
	errorMember1  = []byte(`,"result":null,"error":`)
)

// errorObject returns the error object of msg, an answer in codec's
// layout that is a single error response (in JSON-RPC 2.0, or in 1.0 as
// codec.ToJSONRPC1 writes it), or nil.
func errorObject(msg []byte) []byte {
	if !bytes.HasPrefix(msg, ResponseHead) {
		return errorObject1(msg)
	}
	end, err := codec.SkipValue(msg, len(ResponseHead)) // the id
	if err != nil || !bytes.HasPrefix(msg[end:], ErrorMember) || msg[len(msg)-1] != '}' {
		return nil
	}
	return msg[end+len(ErrorMember) : len(msg)-1]
}

// errorObject1 is errorObject for a 1.0 answer.
func errorObject1(msg []byte) []byte {
	if !bytes.HasPrefix(msg, responseHead1) {
		return nil
	}
	end, err := codec.SkipValue(msg, len(responseHead1)) // the id
	if err != nil || !bytes.HasPrefix(msg[end:], errorMember1) || msg[len(msg)-1] != '}' {
		return nil
	}
	return msg[end+len(errorMember1) : len(msg)-1]
}

// SetHeaders sets on h the headers st calls for besides the status:
// WWW-Authenticate: Bearer for 401, Retry-After when st has a hint.
func (st Status) SetHeaders(h http.Header) {
	if st.Code == http.StatusUnauthorized {
		h["Www-Authenticate"] = bearerChallenge
	}
	if st.RetryAfter >= 0 {
		h.Set("Retry-After", strconv.Itoa(st.RetryAfter))
	}
}

// bearerChallenge is assigned to header maps as it is (see ContentType).
var bearerChallenge = []string{"Bearer"}

// errorFields reads an error object's code and data.retryAfterMs (-1 when
// absent or not a non-negative number). obj is a session's own output,
// valid JSON.
func errorFields(obj []byte) (code codec.Code, retryMs float64) {
	retryMs = -1
	var m codec.Members
	for m.Reset(obj); m.Next(); {
		switch string(m.Name(nil)) {
		case "code":
			if n, err := strconv.ParseInt(string(m.Value()), 10, 32); err == nil {
				code = codec.Code(n)
			}
		case "data":
			if codec.KindOf(m.Value()) != codec.ValueObject {
				continue
			}
			var d codec.Members
			for d.Reset(m.Value()); d.Next(); {
				if string(d.Name(nil)) != "retryAfterMs" {
					continue
				}
				if f, err := strconv.ParseFloat(string(d.Value()), 64); err == nil && f >= 0 {
					retryMs = f
				}
			}
		}
	}
	return code, retryMs
}

// retrySeconds turns a retry hint in milliseconds into Retry-After's
// seconds, rounded up (-1: no hint).
func retrySeconds(ms float64) int {
	if ms < 0 {
		return -1
	}
	return int(min(math.Ceil(ms/1000), math.MaxInt32))
}
