package transport

import (
	"bytes"
	"math"
	"net/http"
	"strconv"

	"github.com/mcpwire/mcpwire/codec"
)

// httpStatus is what an answer calls for on HTTP.
type httpStatus struct {
	status     int
	retryAfter int // seconds for Retry-After; -1: no header
}

var statusOK = httpStatus{http.StatusOK, -1}

// The layout codec.AppendError gives every error response: the session
// writes its answers with it, so an answer that is a single error response
// starts with head, then the id, then errorMember.
var (
	responseHead = []byte(`{"jsonrpc":"2.0","id":`)
	errorMember  = []byte(`,"error":`)
)

// statusOf returns the HTTP status of an answer: 200 unless it is a single
// error response whose code maps to one (see HTTPHandler). A batch's array
// is 200. It looks at the error object only: a result is never scanned.
func statusOf(msg []byte) httpStatus {
	if !bytes.HasPrefix(msg, responseHead) {
		return statusOK
	}
	end, err := codec.SkipValue(msg, len(responseHead)) // the id
	if err != nil || !bytes.HasPrefix(msg[end:], errorMember) || msg[len(msg)-1] != '}' {
		return statusOK
	}
	code, retryMs := errorFields(msg[end+len(errorMember) : len(msg)-1])
	switch {
	case code == codec.CodeUnauthorized:
		return httpStatus{http.StatusUnauthorized, -1}
	case code == codec.CodeForbidden:
		return httpStatus{http.StatusForbidden, -1}
	case code == codec.CodeTooManyRequests:
		return httpStatus{http.StatusTooManyRequests, retrySeconds(retryMs)}
	case code == codec.CodeOverloaded && retryMs >= 0:
		return httpStatus{http.StatusServiceUnavailable, retrySeconds(retryMs)}
	}
	return statusOK
}

// errorFields reads an error object's code and data.retryAfterMs (-1 when
// absent or not a non-negative number). obj is the session's own output,
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
