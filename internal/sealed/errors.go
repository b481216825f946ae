package sealed

import (
	"errors"
	"strconv"

	"github.com/mcpwire/mcpwire/codec"
)

// Errors returned by [Ring.Open] (and ErrTooLarge by [Ring.Seal]). Their
// texts carry no key material, payload or token.
var (
	// ErrMalformed: the token is not one: not base64url, too short, or of
	// a format version this package does not know.
	ErrMalformed = errors.New("sealed: malformed token")
	// ErrUnknownKey: the token names a key the ring does not hold, or one
	// whose Until has passed: it was sealed by another server, or before
	// a rotation's overlap ended.
	ErrUnknownKey = errors.New("sealed: token sealed with a key this ring does not accept")
	// ErrTampered: the token names a key of the ring but fails
	// authentication: it was altered, or sealed by another ring with a
	// key of the same id.
	ErrTampered = errors.New("sealed: token failed authentication")
	// ErrExpired: the token is authentic but its lifetime has passed.
	ErrExpired = errors.New("sealed: token expired")
	// ErrWrongBinding: the token is authentic and current but was sealed
	// for another Binding (another request or principal).
	ErrWrongBinding = errors.New("sealed: token was issued for another request")
	// ErrTooLarge: the payload to seal, or the token to open, is longer
	// than the ring's bound.
	ErrTooLarge = errors.New("sealed: too large")
)

// reasons names each refusal in RPCError's data.
var reasons = []struct {
	err     error
	reason  string
	message string
}{
	{ErrMalformed, "malformed", "requestState is malformed"},
	{ErrUnknownKey, "unknownKey", "requestState was not issued by this server or its key has been retired"},
	{ErrTampered, "tampered", "requestState failed its integrity check"},
	{ErrExpired, "expired", "requestState has expired"},
	{ErrWrongBinding, "wrongRequest", "requestState was issued for another request"},
	{ErrTooLarge, "tooLarge", "requestState is too large"},
}

// RPCErrorData is the data of the errors RPCError returns: the params
// member at fault and why it was refused, one of "malformed",
// "unknownKey", "tampered", "expired", "wrongRequest", "tooLarge".
type RPCErrorData struct {
	Field  string `json:"field"`
	Reason string `json:"reason"`
}

// RPCError returns the JSON-RPC error that answers a request whose
// requestState [Ring.Open] refused with err: -32602 (invalid params), as
// MCP 2026-07-28's conformance suite expects for a state that fails
// verification, with a message that says why and tells the client to
// start the request over, and RPCErrorData. It returns nil for an err
// that is not one of this package's.
func RPCError(err error) *codec.Error {
	for _, r := range reasons {
		if errors.Is(err, r.err) {
			return codec.NewError(codec.CodeInvalidParams,
				"Invalid params: "+r.message+"; send the request again without requestState and inputResponses").
				WithData(&RPCErrorData{Field: "requestState", Reason: r.reason})
		}
	}
	return nil
}

// tooLarge says which bound a payload or token passed; it wraps
// ErrTooLarge.
type tooLarge struct {
	what      string
	size, max int
}

func (e *tooLarge) Error() string {
	return "sealed: " + e.what + " of " + strconv.Itoa(e.size) + " bytes exceeds the limit of " + strconv.Itoa(e.max)
}

func (e *tooLarge) Unwrap() error { return ErrTooLarge }
