package codec

import (
	"encoding/json"
	"math/rand/v2"
	"testing"
)

// benchTokenInputs are the texts of the token benchmarks: params as MCP
// clients send them, small to large.
func benchTokenInputs() []struct {
	name string
	data []byte
} {
	r := rand.New(rand.NewPCG(5, 6))
	return []struct {
		name string
		data []byte
	}{
		{"size=small", []byte(`{"minuend":42,"subtrahend":23}`)},
		{"size=echo", []byte(`{"name":"echo","arguments":{"text":"hello, world","n":42,"tags":["a","b"]},"_meta":{"progressToken":"t-1"}}`)},
		{"size=medium", []byte(mcpToolsList(42))},
		{"size=large", []byte(mcpLarge(r, 42))},
	}
}

func BenchmarkSkipValue(b *testing.B) {
	for _, in := range benchTokenInputs() {
		b.Run(in.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(in.data)))
			for b.Loop() {
				if end, err := SkipValue(in.data, 0); err != nil || end != len(in.data) {
					b.Fatal(end, err)
				}
			}
		})
	}
}

func BenchmarkMembers(b *testing.B) {
	for _, in := range benchTokenInputs() {
		b.Run(in.name, func(b *testing.B) {
			var scratch [32]byte
			b.ReportAllocs()
			b.SetBytes(int64(len(in.data)))
			for b.Loop() {
				var it Members
				n := 0
				for it.Reset(in.data); it.Next(); {
					n += len(it.Name(scratch[:]))
				}
				if it.Err() != nil || n == 0 {
					b.Fatal(it.Err())
				}
			}
		})
	}
}

func BenchmarkCanonical(b *testing.B) {
	for _, in := range benchTokenInputs() {
		b.Run("impl=mcpwire/"+in.name, func(b *testing.B) {
			var c Canonicalizer
			dst := make([]byte, 0, 2*len(in.data))
			b.ReportAllocs()
			b.SetBytes(int64(len(in.data)))
			for b.Loop() {
				out, err := c.Append(dst, in.data)
				if err != nil || len(out) == 0 {
					b.Fatal(err)
				}
			}
		})
		// The usual alternative: decode into any, encode again (maps come
		// out sorted).
		b.Run("impl=encoding_json/"+in.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(in.data)))
			for b.Loop() {
				var v any
				if err := json.Unmarshal(in.data, &v); err != nil {
					b.Fatal(err)
				}
				if out, err := json.Marshal(v); err != nil || len(out) == 0 {
					b.Fatal(err)
				}
			}
		})
	}
}
