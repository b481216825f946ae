package codec

import (
	"sync"
)

// exactDecoders recycles decoder states for UnmarshalExactString.
var exactDecoders = sync.Pool{New: func() any { return new(ExactDecoder) }}

// UnmarshalExact is Unmarshal with member names matched to struct fields
// exactly, byte for byte after unescaping: {"Name":…} does not fill a
// field tagged `json:"name"`. Protocols whose schemas are case-sensitive
// (a JSON Schema validator matches names exactly) decode with it, so that
// the decoder never accepts a member the validator did not see. As with
// Unmarshal, data must be a value a Scanner has already validated; decoded
// strings do not alias it.
//
// It decodes with sonic where sonic has a decoder of its own (amd64, and
// arm64, within the Go versions sonic supports), and elsewhere with
// go-json-experiment/json set to encoding/json's rules but exact names:
// the same rules on every platform.
func UnmarshalExact(data []byte, v any) error {
	return UnmarshalExactString(string(data), v) // a copy: decoded strings may point into it
}

// UnmarshalExactString is UnmarshalExact over a string, which decoded
// strings may alias: one copy of a message can serve many decodes.
func UnmarshalExactString(s string, v any) error {
	d := exactDecoders.Get().(*ExactDecoder)
	err := d.UnmarshalString(s, v)
	exactDecoders.Put(d)
	return err
}

// ExactDecoder decodes as UnmarshalExactString does, with a decoder state
// its owner keeps: beside other state it recycles (a pooled box for the
// params, say), it saves the pool round trip of each decode. The zero
// value is ready; it is not safe for concurrent use, and keeps no data
// between calls.
type ExactDecoder struct{ d exactState }

// UnmarshalString is UnmarshalExactString with x's decoder state.
func (x *ExactDecoder) UnmarshalString(s string, v any) error {
	return x.d.unmarshal(s, v)
}
