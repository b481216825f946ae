package codec

// CONTRACT STUB — to be replaced by the real scanner (helper: scanner).

// Scanner validates frames as JSON (RFC 8259) in one pass and records the
// envelope members of each message. The zero value is not ready: use
// NewScanner. A Scanner is not safe for concurrent use; one per reader.
type Scanner struct {
	limits Limits
	msgs   []Message
}

// NewScanner returns a scanner bounded by l (nil: defaults).
func NewScanner(l *Limits) *Scanner {
	return &Scanner{limits: l.WithDefaults()}
}

// Scan validates frame and classifies what it holds. It returns the messages
// (one for a single value; one per element for a batch, in order) and whether
// the frame was a batch, whose responses must go out as one array. The slice
// and the messages' views are valid until the next call to Scan and as long as
// frame is unchanged.
//
// A frame that is not valid JSON returns a *SyntaxError (answer -32700, id
// null). An empty batch or one longer than MaxBatch returns one KindInvalid
// message with batch false (answer a single error, not an array).
func (s *Scanner) Scan(frame []byte) (msgs []Message, batch bool, err error) {
	panic("not implemented")
}

// Valid reports whether data is one valid JSON value (RFC 8259, strict UTF-8
// and escapes), nested at most MaxDepth deep, with only white space around it.
func (s *Scanner) Valid(data []byte) bool {
	panic("not implemented")
}

// AppendUnescaped appends the unescaped contents of a JSON string body (the
// bytes between the quotes, already validated by a Scanner) to dst.
func AppendUnescaped(dst, body []byte) []byte {
	panic("not implemented")
}
