package codec

// Raw is a JSON value that is already encoded: as a handler result or as
// error data it is copied to the wire verbatim, never re-encoded; as a field
// of a decoded struct it receives the member's JSON verbatim (a copy).
type Raw []byte

// Kind classifies a scanned message.
type Kind uint8

const (
	// KindInvalid is a message to answer with Err (-32600 or -32601 for a
	// reserved rpc. name). ID is the request's id if it could be read, else
	// nil and the answer carries id null.
	KindInvalid Kind = iota
	// KindRequest has a method and an id: it gets exactly one response.
	KindRequest
	// KindNotification has a method and no id member: it never gets a response.
	KindNotification
	// KindResult is a response carrying result.
	KindResult
	// KindError is a response carrying error.
	KindError
	// KindBadResponse looks like a response (no method; result or error) but
	// breaks the rules. It is never answered, so that two peers cannot loop
	// on each other's errors; Err says what was wrong, for logs.
	KindBadResponse
)

var kindText = [...]string{"invalid", "request", "notification", "result", "error", "bad response"}

func (k Kind) String() string {
	if int(k) < len(kindText) {
		return kindText[k]
	}
	return "kind?"
}

// Message is one JSON-RPC envelope found by the Scanner. Its byte fields are
// views into the scanned frame: valid as long as the frame is, and never to
// be modified. Copy what must outlive it.
type Message struct {
	Kind Kind
	// ID is the id exactly as received (`1.50`, `"\u00e9"`, `null`), or nil
	// when there is no id member (or, for KindInvalid, no readable id).
	ID []byte
	// Method is the raw method string between its quotes, still escaped when
	// MethodEscaped is set: use AppendMethod for the name.
	Method []byte
	// Params is the raw params array or object; nil when absent or null.
	Params []byte
	// Result is the raw result value of a KindResult.
	Result []byte
	// ErrorObj is the raw error object of a KindError.
	ErrorObj []byte
	// Err is the error to answer a KindInvalid with, or what is wrong with a
	// KindBadResponse. Shared and read-only.
	Err *Error
	// MethodEscaped reports that Method contains escape sequences.
	MethodEscaped bool
	// JSONRPC1 reports a JSON-RPC 1.0 object (no jsonrpc member, or
	// "jsonrpc":"1.0"), found only by a Scanner with SetJSONRPC1: it is
	// to be answered in the 1.0 shape (ToJSONRPC1). Always false in a
	// batch.
	JSONRPC1 bool
}

// Rebase returns m with its spans moved from frame to cp, a copy of frame
// (same length, same bytes): for keeping a message past the life of the
// buffer it was scanned from. Spans that are nil stay nil.
//
// It relies on how a Scanner makes spans, and is the only code that does:
// every span is a sub-slice of the frame made without a full slice
// expression, so its capacity runs to the end of the frame's and its offset
// in the frame is cap(frame) - cap(span).
func (m *Message) Rebase(frame, cp []byte) Message {
	r := *m
	r.ID = rebase(frame, cp, m.ID)
	r.Method = rebase(frame, cp, m.Method)
	r.Params = rebase(frame, cp, m.Params)
	r.Result = rebase(frame, cp, m.Result)
	r.ErrorObj = rebase(frame, cp, m.ErrorObj)
	return r
}

func rebase(frame, cp, span []byte) []byte {
	if span == nil {
		return nil
	}
	off := cap(frame) - cap(span)
	return cp[off : off+len(span) : off+len(span)]
}

// AppendMethod appends the method name, unescaped, to dst. When the name has
// no escapes (the common case) it is a plain append.
func (m *Message) AppendMethod(dst []byte) []byte {
	if !m.MethodEscaped {
		return append(dst, m.Method...)
	}
	return AppendUnescaped(dst, m.Method)
}
