package conn

// CallError is what a Stream's Next (or a MessageConn's ReadMessage)
// returns in place of a message when the transport learned, instead of an
// answer to one of the session's outgoing calls, why none will come: an
// HTTP status that carries no JSON-RPC answer, say. The call whose id is
// ID (its bytes as sent) fails with Err, as Call's error, and the session
// reads on: a CallError does not end the stream. One that names no call
// waiting is dropped.
type CallError struct {
	ID  []byte
	Err error
}

// Error returns Err's text.
func (e *CallError) Error() string { return e.Err.Error() }

// Unwrap returns Err.
func (e *CallError) Unwrap() error { return e.Err }
