package codec

import "github.com/bytedance/sonic"

// exact decodes as Unmarshal does, but matches object member names to
// struct fields case-sensitively.
var exact = sonic.Config{CaseSensitive: true}.Froze()

// UnmarshalExact is Unmarshal with member names matched to struct fields
// exactly, byte for byte after unescaping: {"Name":…} does not fill a
// field tagged `json:"name"`. Protocols whose schemas are case-sensitive
// (a JSON Schema validator matches names exactly) decode with it, so that
// the decoder never accepts a member the validator did not see. As with
// Unmarshal, data must be a value a Scanner has already validated.
func UnmarshalExact(data []byte, v any) error {
	return exact.Unmarshal(data, v)
}
