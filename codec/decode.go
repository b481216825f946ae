package codec

import "github.com/bytedance/sonic"

// Unmarshal decodes data into v with sonic. data must be a value a Scanner
// has already validated (a Message's Params, Result or ErrorObj): sonic never
// sees untrusted bytes.
func Unmarshal(data []byte, v any) error {
	return sonic.Unmarshal(data, v)
}
