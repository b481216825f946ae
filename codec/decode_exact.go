package codec

import (
	"sync"

	"github.com/bytedance/sonic/decoder"
)

// exactDecoders recycles sonic decoder states for UnmarshalExact.
var exactDecoders = sync.Pool{New: func() any { return new(decoder.Decoder) }}

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
	d := exactDecoders.Get().(*decoder.Decoder)
	d.Reset(s)
	// encoding/json's defaults (numbers into any are float64) but for
	// names, which are matched exactly.
	d.SetOptions(decoder.OptionCaseSensitive)
	err := d.Decode(v)
	d.Reset("") // keep no data alive from the pool
	exactDecoders.Put(d)
	return err
}
