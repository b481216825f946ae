package client

import (
	"errors"

	"github.com/mcpwire/mcpwire/codec"
)

// ErrClosed is returned by calls on a Client that has been closed, and by
// the calls it cut short.
var ErrClosed = errors.New("client: closed")

// TransportError says that a call got no answer because its transport
// failed: the dial failed, or the session ended (the server went away, a
// write failed) before the answer came. Sent says whether the request may
// have reached the server: when false it certainly did not, and retrying
// it is safe whatever the method does.
type TransportError struct {
	// Sent is true when the request may have been written.
	Sent bool
	// Err is the cause: the dial's error, conn.ErrClosed, a write error.
	Err error
}

func (e *TransportError) Error() string {
	why := "unknown cause"
	if e.Err != nil {
		why = e.Err.Error()
	}
	if e.Sent {
		return "client: transport failed after the request may have been sent: " + why
	}
	return "client: transport failed before the request was sent: " + why
}

// Unwrap returns the cause.
func (e *TransportError) Unwrap() error { return e.Err }

// retryable reports whether an idempotent call that failed with err may
// be tried again, and the least wait before it (the server's
// data.retryAfterMs on -32000 and -32011).
func retryable(err error) (floor int64, ok bool) {
	var e *codec.Error
	var te *TransportError
	switch {
	case errors.As(err, &e) && (e.Code == codec.CodeOverloaded || e.Code == codec.CodeTooManyRequests):
		return retryAfterMs(e), true
	case errors.As(err, &e):
		return 0, e.Code == codec.CodeRequestTimeout
	case errors.As(err, &te):
		return 0, !te.Sent
	}
	return 0, false
}

// retryAfterMs reads data.retryAfterMs of an error response: 0 when it has
// none, or none that is a non-negative integer.
func retryAfterMs(e *codec.Error) int64 {
	raw, ok := e.Data.(codec.Raw)
	if !ok {
		return 0
	}
	var d struct {
		RetryAfterMs *int64 `json:"retryAfterMs"`
	}
	if codec.Unmarshal(raw, &d) != nil || d.RetryAfterMs == nil || *d.RetryAfterMs < 0 {
		return 0
	}
	return *d.RetryAfterMs
}
