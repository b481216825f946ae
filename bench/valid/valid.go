package valid

import (
	"bytes"
	"encoding/json"

	"github.com/bytedance/sonic"
	"github.com/valyala/fastjson"

	"github.com/mcpwire/mcpwire/codec"
)

// Impl is one validator. New returns a function that reports whether its
// input is one valid JSON value; the function need not be safe for
// concurrent use (mcpwire's scanner keeps state).
type Impl struct {
	Name string
	New  func() func([]byte) bool
}

// Impls are the validators, mcpwire first and sonic, the peer of W5's
// target, next: benchmarks run one after the other, so that a burst of
// load on a shared machine lands on the two alike. indexbyte is not one:
// it finds the newlines of a stream and nothing else, the
// memory-bandwidth ceiling of any validator that reads every byte.
var Impls = []Impl{
	{"mcpwire", func() func([]byte) bool { return codec.NewScanner(nil).Valid }},
	{"sonic", func() func([]byte) bool { return sonic.Valid }},
	{"encoding-json", func() func([]byte) bool { return json.Valid }},
	{"fastjson", func() func([]byte) bool {
		return func(b []byte) bool { return fastjson.ValidateBytes(b) == nil }
	}},
	{"indexbyte", func() func([]byte) bool { return func([]byte) bool { return true } }},
}

// Lines validates each newline-terminated line of stream with valid and
// returns how many lines there were and how many were valid.
func Lines(stream []byte, valid func([]byte) bool) (lines, ok int) {
	for len(stream) > 0 {
		i := bytes.IndexByte(stream, '\n')
		if i < 0 {
			i = len(stream)
		}
		lines++
		if valid(stream[:i]) {
			ok++
		}
		stream = stream[min(i+1, len(stream)):]
	}
	return lines, ok
}
