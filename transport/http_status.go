package transport

import "github.com/mcpwire/mcpwire/internal/httpjson"

// httpStatus is what an answer calls for on HTTP (httpjson.StatusOf).
type httpStatus = httpjson.Status

// The layout of a single error response (httpjson.ResponseHead).
var (
	responseHead = httpjson.ResponseHead
	errorMember  = httpjson.ErrorMember
)

// statusOf returns the HTTP status of an answer (httpjson.StatusOf): 200
// unless it is a single error response whose code maps to one (see
// HTTPHandler). A batch's array is 200.
func statusOf(msg []byte) httpStatus { return httpjson.StatusOf(msg) }
