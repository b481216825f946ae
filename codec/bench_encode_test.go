package codec

import (
	"testing"
)

// benchToolResult is a typical MCP tools/call result.
type benchToolResult struct {
	Content []benchContent `json:"content"`
	IsError bool           `json:"isError"`
}

type benchContent struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

func BenchmarkEncode(b *testing.B) {
	var pool BufferPool
	id := []byte(`"req-17"`)
	value := &benchToolResult{Content: []benchContent{{Type: "text", Text: "The weather in Paris is 18°C and sunny."}}}
	raw, err := AppendValue(nil, value)
	if err != nil {
		b.Fatal(err)
	}
	dataErr := ErrInvalidParams.WithData(Raw(`{"field":"arguments.city","reason":"required"}`))
	cases := []struct {
		name string
		fn   func(dst []byte) ([]byte, error)
	}{
		{"result-raw", func(dst []byte) ([]byte, error) { return AppendResult(dst, id, raw), nil }},
		{"result-value", func(dst []byte) ([]byte, error) { return AppendResultValue(dst, id, value) }},
		{"error", func(dst []byte) ([]byte, error) { return AppendError(dst, id, ErrMethodNotFound), nil }},
		{"error-data", func(dst []byte) ([]byte, error) { return AppendError(dst, id, dataErr), nil }},
		{"request", func(dst []byte) ([]byte, error) { return AppendRequest(dst, id, "tools/call", raw), nil }},
	}
	for _, c := range cases {
		b.Run("kind="+c.name, func(b *testing.B) {
			out, err := c.fn(nil)
			if err != nil {
				b.Fatal(err)
			}
			want := len(out)
			b.SetBytes(int64(want))
			b.ReportAllocs()
			for b.Loop() {
				buf := pool.Get()
				buf.B, err = c.fn(buf.B)
				if err != nil || len(buf.B) != want {
					b.Fatalf("%d bytes, %v", len(buf.B), err)
				}
				pool.Put(buf)
			}
		})
	}
}
