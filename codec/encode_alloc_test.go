//go:build !race

package codec

import "testing"

// TestEncode_allocs: encoding into a pooled buffer allocates nothing, except
// the one allocation inside sonic for a Go value.
func TestEncode_allocs(t *testing.T) {
	var pool BufferPool
	id := []byte(`"req-17"`)
	result := []byte(`{"content":[{"type":"text","text":"hello"}],"isError":false}`)
	small := &encodeSmall{Name: "echo", Count: 3, Tags: []string{"a", "b"}}
	dataErr := ErrInvalidParams.WithData(Raw(`{"field":"uri"}`))
	cases := []struct {
		name string
		max  float64
		fn   func(dst []byte) []byte
	}{
		{"result raw", 0, func(dst []byte) []byte { return AppendResult(dst, id, result) }},
		{"error ready-made", 0, func(dst []byte) []byte { return AppendError(dst, id, ErrMethodNotFound) }},
		{"error raw data", 0, func(dst []byte) []byte { return AppendError(dst, id, dataErr) }},
		{"request", 0, func(dst []byte) []byte { return AppendRequest(dst, id, "tools/call", result) }},
		// A plain string is quoted without sonic.
		{"result plain string", 0, func(dst []byte) []byte {
			dst, err := AppendResultValue(dst, id, any("hello, world"))
			if err != nil {
				t.Fatal(err)
			}
			return dst
		}},
		// sonic's EncodeInto allocates the interface word it takes the
		// address of (16 bytes); nothing else allocates.
		{"result value pointer", 1, func(dst []byte) []byte {
			dst, err := AppendResultValue(dst, id, small)
			if err != nil {
				t.Fatal(err)
			}
			return dst
		}},
	}
	for _, c := range cases {
		c.fn(nil) // sonic compiles its encoder for the type once
		allocs := testing.AllocsPerRun(1000, func() {
			b := pool.Get()
			b.B = c.fn(b.B)
			if len(b.B) == 0 {
				t.Fatal("empty output")
			}
			pool.Put(b)
		})
		if allocs > c.max {
			t.Errorf("%s: %v allocs, want <= %v", c.name, allocs, c.max)
		}
	}
}
