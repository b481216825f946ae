package codec

import (
	"sync"

	"github.com/bytedance/sonic/decoder"
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
type ExactDecoder struct{ d decoder.Decoder }

// UnmarshalString is UnmarshalExactString with x's decoder state.
func (x *ExactDecoder) UnmarshalString(s string, v any) error {
	x.d.Reset(s)
	// encoding/json's defaults (numbers into any are float64) but for
	// names, which are matched exactly.
	x.d.SetOptions(decoder.OptionCaseSensitive)
	err := x.d.Decode(v)
	x.d.Reset("") // keep no data alive from the pool
	return err
}
