//go:build !((amd64 && go1.17 && !go1.28) || (arm64 && go1.20 && !go1.28))

package codec

import "github.com/go-json-experiment/json"

// exactState decodes with go-json-experiment/json, which matches names
// exactly; it has no state of its own.
type exactState struct{}

func (*exactState) unmarshal(s string, v any) error {
	return json.Unmarshal([]byte(s), v, exactOptions)
}
