//go:build (amd64 && go1.17 && !go1.28) || (arm64 && go1.20 && !go1.28)

package codec

import "github.com/bytedance/sonic/decoder"

// exactState is a sonic decoder state.
type exactState struct{ d decoder.Decoder }

func (x *exactState) unmarshal(s string, v any) error {
	x.d.Reset(s)
	// encoding/json's defaults (numbers into any are float64) but for
	// names, which are matched exactly.
	x.d.SetOptions(decoder.OptionCaseSensitive)
	err := x.d.Decode(v)
	x.d.Reset("") // keep no data alive from the pool
	return err
}
