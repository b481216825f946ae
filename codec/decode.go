package codec

import "github.com/bytedance/sonic"

// Unmarshal decodes data into v with sonic. data must be a value a Scanner
// has already validated (a Message's Params, Result or ErrorObj): sonic never
// sees untrusted bytes.
func Unmarshal(data []byte, v any) error {
	return sonic.Unmarshal(data, v)
}

// UnmarshalJSON sets *r to a copy of b, the JSON value verbatim (null
// included), reusing r's memory when it has room: a Raw field of a params
// struct receives its member as sent, by sonic and by encoding/json alike.
// It does not validate b; decoders hand it one whole value.
func (r *Raw) UnmarshalJSON(b []byte) error {
	*r = append((*r)[:0], b...)
	return nil
}
