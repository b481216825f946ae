//go:build !race

package codec

import "testing"

// TestTokens_allocs states the allocation budget of the token API: none for
// skipping, iterating and unquoting into a buffer with room, and none for a
// Canonicalizer that has seen a text of the same shape, writing into a dst
// with room.
func TestTokens_allocs(t *testing.T) {
	obj := []byte(mcpToolsList(3))
	arr := []byte(`[1,"two",{"three":[3]},"\u0034",null]`)
	params := []byte(`{"name":"echo","arguments":{"text":"h\u00e9llo","n":1,"a":[true,{"z":0,"y":1}]},"_meta":{}}`)
	scratch := make([]byte, 0, 64)
	dst := make([]byte, 0, 256)
	var c Canonicalizer
	tests := []struct {
		name string
		f    func()
	}{
		{"SkipValue", func() {
			if end, err := SkipValue(obj, 0); err != nil || end != len(obj) {
				t.Fatal(end, err)
			}
		}},
		{"Members", func() {
			var it Members
			n := 0
			for it.Reset(params); it.Next(); {
				n += len(it.Name(scratch))
			}
			if it.Err() != nil || n == 0 {
				t.Fatal(it.Err())
			}
		}},
		{"Elements", func() {
			var it Elements
			for it.Reset(arr); it.Next(); {
			}
			if it.Err() != nil || it.Index() != 4 {
				t.Fatal(it.Err())
			}
		}},
		{"AppendUnquote", func() {
			if _, err := AppendUnquote(scratch, []byte(`"h\u00e9llo"`)); err != nil {
				t.Fatal(err)
			}
		}},
		{"Canonicalizer", func() {
			if _, err := c.Append(dst, params); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tt := range tests {
		if n := testing.AllocsPerRun(100, tt.f); n != 0 {
			t.Errorf("%s: %v allocations per call, want 0", tt.name, n)
		}
	}
}
