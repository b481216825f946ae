package codec

import (
	"errors"
	"strconv"
)

// Code is a JSON-RPC error code. Every code the project uses is a named
// constant in the table below; our own codes are assigned once and never reused.
type Code int32

// Standard JSON-RPC 2.0 codes.
const (
	CodeParseError     Code = -32700 // invalid JSON: syntax, UTF-8, escapes, depth
	CodeInvalidRequest Code = -32600 // valid JSON that is not a valid request
	CodeMethodNotFound Code = -32601 // no handler for the method
	CodeInvalidParams  Code = -32602 // params do not fit the method
	CodeInternalError  Code = -32603 // the handler failed or panicked
)

// Codes defined by the Model Context Protocol (the official specification wins
// over codes taught elsewhere).
const (
	CodeResourceNotFound       Code = -32002 // MCP up to 2025-11-25
	CodeURLElicitationRequired Code = -32042 // MCP URL elicitation (2025-11-25)
)

// Codes of MCP 2026-07-28, which reserves -32020…-32099 for its own.
const (
	CodeHeaderMismatch                  Code = -32020 // an HTTP header disagrees with the body
	CodeMissingRequiredClientCapability Code = -32021 // data.requiredCapabilities
	CodeUnsupportedProtocolVersion      Code = -32022 // data.supported, data.requested
)

// mcpwire's own server errors, in -32000…-32019.
const (
	CodeOverloaded       Code = -32000 // refused before it started (overload, shutdown): a retry is safe; data.retryAfterMs
	CodeResponseTooLarge Code = -32003 // response exceeds the configured limit
	CodeAbandoned        Code = -32004 // started, then abandoned by a shutdown: it may have had effects
	CodeCancelled        Code = -32005 // started, then cancelled (by the peer or the session): it may have had effects
	CodeUnauthorized     Code = -32009
	CodeForbidden        Code = -32010
	CodeTooManyRequests  Code = -32011 // rate limited; data.retryAfterMs
	CodeRequestTimeout   Code = -32012
)

var codeText = map[Code]string{
	CodeParseError:             "Parse error",
	CodeInvalidRequest:         "Invalid Request",
	CodeMethodNotFound:         "Method not found",
	CodeInvalidParams:          "Invalid params",
	CodeInternalError:          "Internal error",
	CodeResourceNotFound:       "Resource not found",
	CodeURLElicitationRequired: "URL elicitation required",
	CodeOverloaded:             "Server overloaded",
	CodeResponseTooLarge:       "Response too large",
	CodeAbandoned:              "Request abandoned",
	CodeCancelled:              "Request cancelled",
	CodeUnauthorized:           "Unauthorized",
	CodeForbidden:              "Forbidden",
	CodeTooManyRequests:        "Too many requests",
	CodeRequestTimeout:         "Request timeout",

	CodeHeaderMismatch:                  "Header mismatch",
	CodeMissingRequiredClientCapability: "Missing required client capability",
	CodeUnsupportedProtocolVersion:      "Unsupported protocol version",
}

// String returns the standard message for c, or "error <n>" for a code
// outside the table.
func (c Code) String() string {
	if s, ok := codeText[c]; ok {
		return s
	}
	return "error " + strconv.Itoa(int(c))
}

// ErrCoder is an error that carries a JSON-RPC code of its own (the
// interface of creachadair/jrpc2, among others). A connection answers such
// a handler error with that code and the error's text; any other error a
// handler returns is answered -32603 "Internal error", its text kept out of
// the answer unless the server opts in.
type ErrCoder interface {
	error
	ErrCode() Code
}

// Error is a JSON-RPC error object. Errors compare by code: errors.Is(err,
// &Error{Code: CodeMethodNotFound}) holds for any method-not-found error.
//
// Data, when not nil, is encoded as the error's data member: a Raw value is
// copied verbatim, anything else is encoded with sonic. An *Error is read-only
// once returned; it is safe for concurrent use.
type Error struct {
	Code    Code
	Message string
	Data    any
}

// NewError returns an error with code c and message msg; an empty msg takes
// the code's standard text.
func NewError(c Code, msg string) *Error {
	if msg == "" {
		msg = c.String()
	}
	return &Error{Code: c, Message: msg}
}

// Errorf-style helpers are deliberately absent: build the message where the
// error is rare, and use the ready-made values below on hot paths.

func (e *Error) Error() string {
	return "jsonrpc error " + strconv.Itoa(int(e.Code)) + ": " + e.Message
}

// Is reports whether target is an *Error with the same code.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

// WithData returns a copy of e carrying data.
func (e *Error) WithData(data any) *Error {
	c := *e
	c.Data = data
	return &c
}

// Ready-made errors for the hot path. They are shared: never modify them; use
// WithData or NewError for a variant.
var (
	ErrParse          = NewError(CodeParseError, "")
	ErrInvalidRequest = NewError(CodeInvalidRequest, "")
	ErrMethodNotFound = NewError(CodeMethodNotFound, "")
	ErrInvalidParams  = NewError(CodeInvalidParams, "")
	ErrInternal       = NewError(CodeInternalError, "")
)

// Invalid-request variants that say what was wrong. Shared and read-only.
var (
	errBadVersion     = NewError(CodeInvalidRequest, "Invalid Request: jsonrpc must be \"2.0\"")
	errBadMethod      = NewError(CodeInvalidRequest, "Invalid Request: method must be a string")
	errBadParams      = NewError(CodeInvalidRequest, "Invalid Request: params must be an array or an object")
	errBadID          = NewError(CodeInvalidRequest, "Invalid Request: id must be a string, a number or null")
	errDupMember      = NewError(CodeInvalidRequest, "Invalid Request: duplicated member")
	errNotObject      = NewError(CodeInvalidRequest, "Invalid Request: not an object")
	errEmptyBatch     = NewError(CodeInvalidRequest, "Invalid Request: empty batch")
	errBatchTooLong   = NewError(CodeInvalidRequest, "Invalid Request: batch too long")
	errNoMethod       = NewError(CodeInvalidRequest, "Invalid Request: no method")
	errBadResponse    = NewError(CodeInvalidRequest, "Invalid Request: malformed response")
	errReservedMethod = NewError(CodeMethodNotFound, "Method not found: names beginning with rpc. are reserved")
	errFrameTooLarge  = NewError(CodeInvalidRequest, "Invalid Request: frame too large")
)

// Sentinels wrapped by *SyntaxError and *FrameError. Compare with errors.Is.
var (
	ErrSyntax        = errors.New("invalid JSON syntax")
	ErrInvalidUTF8   = errors.New("invalid UTF-8")
	ErrInvalidEscape = errors.New("invalid escape sequence")
	ErrTooDeep       = errors.New("nesting too deep")
	ErrTrailingData  = errors.New("data after the top-level value")
	ErrDuplicateKey  = errors.New("duplicated envelope member")
	ErrFrameTooLarge = errors.New("frame too large")
	ErrBadHeader     = errors.New("malformed frame header")
)

// SyntaxError reports where a frame stopped being valid JSON. It wraps one of
// the sentinels above.
type SyntaxError struct {
	Offset int64 // byte offset in the frame
	Err    error // sentinel
}

func (e *SyntaxError) Error() string {
	return "json: " + e.Err.Error() + " at offset " + strconv.FormatInt(e.Offset, 10)
}

func (e *SyntaxError) Unwrap() error { return e.Err }

// FrameError is a recoverable framing problem: the framer has skipped the bad
// frame and the next call to Next goes on with the stream. Any other error
// from a framer ends the stream.
type FrameError struct {
	Offset int64 // stream offset where the bad frame began
	Err    error // ErrFrameTooLarge or ErrBadHeader
}

func (e *FrameError) Error() string {
	return "frame: " + e.Err.Error() + " at stream offset " + strconv.FormatInt(e.Offset, 10)
}

func (e *FrameError) Unwrap() error { return e.Err }

// RPCError is the error object to answer a FrameError with (id null):
// -32600 for a frame over the limit, -32700 for a malformed header.
func (e *FrameError) RPCError() *Error {
	if errors.Is(e.Err, ErrFrameTooLarge) {
		return errFrameTooLarge
	}
	return ErrParse
}
